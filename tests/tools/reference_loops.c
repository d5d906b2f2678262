/* The loops a user would write in C for abench's raw workloads, counted under callgrind: the
 * reference abench's own timed loop is held to (issue 49; docs/measurement.md, "What the
 * harness adds"). One process a cell, as an abench worker: OPS operations of WORKLOAD at
 * SIZE bytes, LIVE an iteration (iterations of LIVE, rounded up as abench rounds them), once
 * unmeasured as warm-up and once with callgrind collecting, as abench's --measure
 * instructions counts a cell. Run it as
 *   valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file=F \
 *     abench-reference-loop WORKLOAD SIZE LIVE [OPS [KEPT [FREED]]]
 * and read F's totals: instructions over ITERATIONS x LIVE operations (printed on stdout).
 * KEPT and FREED set the heap up first, as a process that did other work before the loop has
 * it: KEPT blocks of SIZE allocated and kept live, then FREED more allocated and freed.
 *   WORKLOAD: pair (malloc + free at once), batch (LIVE blocks, then freed in order),
 *             batch-reverse (freed in reverse order)
 * The barriers are abench's: the size hidden from the compiler, each block escaping. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else /* built without valgrind's headers: the loops run, nothing toggles collection */
#define CALLGRIND_TOGGLE_COLLECT
#endif

enum { kMaxLive = 4096 };

static void* blocks[kMaxLive];

static inline size_t hidden(size_t n) {
  __asm__ volatile("" : "+r"(n));
  return n;
}
static inline void escape(void* p) { __asm__ volatile("" : : "r"(p) : "memory"); }

__attribute__((noinline)) static void pairs(uint64_t iterations, size_t live, size_t size) {
  for (uint64_t it = 0; it < iterations; ++it)
    for (size_t i = 0; i < live; ++i) {
      void* p = malloc(hidden(size));
      escape(p);
      free(p);
    }
}

__attribute__((noinline)) static void batches(uint64_t iterations, size_t live, size_t size, int reverse) {
  for (uint64_t it = 0; it < iterations; ++it) {
    for (size_t i = 0; i < live; ++i) {
      blocks[i] = malloc(hidden(size));
      escape(blocks[i]);
    }
    if (reverse)
      for (size_t i = live; i-- > 0;) free(blocks[i]);
    else
      for (size_t i = 0; i < live; ++i) free(blocks[i]);
  }
}

static void run(const char* workload, uint64_t iterations, size_t live, size_t size) {
  if (strcmp(workload, "pair") == 0)
    pairs(iterations, live, size);
  else
    batches(iterations, live, size, strcmp(workload, "batch-reverse") == 0);
}

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s pair|batch|batch-reverse SIZE LIVE [OPS]\n", argv[0]);
    return 2;
  }
  const char* workload = argv[1];
  const size_t size = strtoull(argv[2], NULL, 10), live = strtoull(argv[3], NULL, 10);
  const uint64_t ops = argc > 4 ? strtoull(argv[4], NULL, 10) : 256;
  const size_t kept = argc > 5 ? strtoull(argv[5], NULL, 10) : 0, freed = argc > 6 ? strtoull(argv[6], NULL, 10) : 0;
  if (strcmp(workload, "pair") != 0 && strcmp(workload, "batch") != 0 && strcmp(workload, "batch-reverse") != 0) {
    fprintf(stderr, "workload %s: pair, batch or batch-reverse\n", workload);
    return 2;
  }
  if (live < 1 || live > kMaxLive || size < 1 || kept + freed > kMaxLive) {
    fprintf(stderr, "LIVE 1 to %d, SIZE at least 1, KEPT + FREED at most %d\n", kMaxLive, kMaxLive);
    return 2;
  }
  static void* before[kMaxLive];
  for (size_t i = 0; i < kept + freed; ++i) escape(before[i] = malloc(hidden(size)));
  for (size_t i = kept; i < kept + freed; ++i) free(before[i]);
  const uint64_t iterations = (ops + live - 1) / live;
  run(workload, iterations, live, size); /* warm-up, as abench's */
  CALLGRIND_TOGGLE_COLLECT;
  run(workload, iterations, live, size);
  CALLGRIND_TOGGLE_COLLECT;
  printf("%llu operations\n", (unsigned long long)(iterations * live));
  return 0;
}
