/* The reference for "what the harness adds": malloc(size) + free in a plain C loop, with
 * the allocator linked (or preloaded), pinned by the caller (taskset), best of ROUNDS
 * rounds of N pairs, as allocator bug reports quote it. The asm keeps the block alive
 * past the compiler's view, as abench's own barrier does. With PER > 1, each iteration of
 * the outer loop makes PER pairs in an inner loop, as a hand-written benchmark of L pairs
 * an iteration would (abench's pair cell at live L); PER 1 is the plain loop. With UNROLL
 * "x8" the innermost loop is unrolled by 8, so 8 pairs share a branch, as in abench's own
 * loop at every live count (harness/workloads.h): the same structure without the harness.
 * LAYOUT places the same loop elsewhere: "probed" (one pair made before the rounds, which
 * moves the code after it) or, for the plain loop, "function" (a function of its own). Where the code lies moved
 * this loop by 10-20% on glibc here with the same instructions (docs/measurement.md), so the
 * fastest layout is the reference a hand-written benchmark can reach.
 *   abench-tight-loop [SIZE [N [ROUNDS [CALLS [PER [UNROLL [LAYOUT]]]]]]]
 *   CALLS: malloc (default) | sdallocx | mallocx; UNROLL: x8 or anything else; LAYOUT: main (default) | function | probed
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

typedef void* (*mallocx_fn)(size_t, int);
typedef void (*sdallocx_fn)(void*, size_t, int);

/* One malloc + free; inlined into each loop below. */
static inline __attribute__((always_inline)) void one_pair(size_t size, int use_mallocx, int use_sdallocx,
                                                           mallocx_fn mallocx, sdallocx_fn sdallocx) {
  size_t s = size;
  __asm__ volatile("" : "+r"(s));
  void* p = use_mallocx ? mallocx(s, 0) : malloc(s);
  __asm__ volatile("" : : "r"(p) : "memory");
  if (use_sdallocx) sdallocx(p, s, 0); else free(p);
}

/* The plain loop in a function of its own. */
__attribute__((noinline)) static void pairs_in_a_function(long n, size_t size) {
  for (long i = 0; i < n; ++i) one_pair(size, 0, 0, NULL, NULL);
}

int main(int argc, char** argv) {
  const size_t size = argc > 1 ? strtoull(argv[1], NULL, 10) : 32;
  const long n = argc > 2 ? strtol(argv[2], NULL, 10) : 20000000;
  const int rounds = argc > 3 ? atoi(argv[3]) : 7;
  const char* calls = argc > 4 ? argv[4] : "malloc";
  long per = argc > 5 ? strtol(argv[5], NULL, 10) : 1;
  if (per < 1) per = 1;
  const int unrolled = argc > 6 && strcmp(argv[6], "x8") == 0;
  const char* layout = argc > 7 ? argv[7] : "main";
  const int in_a_function = strcmp(layout, "function") == 0;
  if (strcmp(layout, "main") != 0 && !in_a_function && strcmp(layout, "probed") != 0) {
    fprintf(stderr, "layout %s: main, function or probed\n", layout);
    return 2;
  }
  if (in_a_function && (per != 1 || unrolled || strcmp(calls, "malloc") != 0)) {
    fprintf(stderr, "layout function: the plain loop only (PER 1, not unrolled, CALLS malloc)\n");
    return 2;
  }
  if (strcmp(layout, "probed") == 0) one_pair(size, 0, 0, NULL, NULL);  /* plain malloc and free */
  /* jemalloc's extended calls, looked up so one binary serves every allocator */
  mallocx_fn mallocx = (mallocx_fn)dlsym(RTLD_DEFAULT, "mallocx");
  sdallocx_fn sdallocx = (sdallocx_fn)dlsym(RTLD_DEFAULT, "sdallocx");
  const int use_mallocx = strcmp(calls, "mallocx") == 0, use_sdallocx = use_mallocx || strcmp(calls, "sdallocx") == 0;
  if (use_sdallocx && (mallocx == NULL || sdallocx == NULL)) {
    fprintf(stderr, "no mallocx/sdallocx in this process\n");
    return 2;
  }
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    const uint64_t start = now_ns();
    if (in_a_function) {
      pairs_in_a_function(n, size);
    } else if (per == 1 && unrolled) {
#pragma GCC unroll 8
      for (long i = 0; i < n; ++i) one_pair(size, use_mallocx, use_sdallocx, mallocx, sdallocx);
    } else if (per == 1) {
      for (long i = 0; i < n; ++i) one_pair(size, use_mallocx, use_sdallocx, mallocx, sdallocx);
    } else if (unrolled) {
      for (long i = 0; i < n / per; ++i) {
#pragma GCC unroll 8
        for (long k = 0; k < per; ++k) one_pair(size, use_mallocx, use_sdallocx, mallocx, sdallocx);
      }
    } else {
      for (long i = 0; i < n / per; ++i)
        for (long k = 0; k < per; ++k) one_pair(size, use_mallocx, use_sdallocx, mallocx, sdallocx);
    }
    const double ns = (double)(now_ns() - start) / (double)(n / per * per);
    if (ns < best) best = ns;
  }
  printf("%s(%zu) + %s, %ld an iteration%s, layout %s: best of %d x %ld: %.2f ns per pair\n",
         use_mallocx ? "mallocx" : "malloc", size, use_sdallocx ? "sdallocx" : "free", per,
         unrolled ? ", unrolled by 8" : "", layout, rounds, n / per * per, best);
  return 0;
}
