/* A tiny malloc replacement for the end-to-end tests of allocators built from source:
 * power-of-two size classes with free lists over mmap'd chunks, one lock, a 16-byte
 * header before each block. Built four times: the second revision (TINY_EXTRA_WORK) spins on
 * every malloc, measurably slower on purpose; the third does the first's work with cache misses;
 * the fourth (TINY_HISTORY) makes a large block dearer for every other large size class the
 * process has used, a figure that depends on what ran before it. It exports what real allocators export
 * (malloc, free, calloc, realloc, posix_memalign, aligned_alloc, memalign, strdup,
 * malloc_usable_size), strdup allocating without the malloc symbol as mimalloc's does. */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifndef TINY_EXTRA_WORK
#define TINY_EXTRA_WORK 0
#endif
/* Every malloc reads TINY_READS bytes of a 64 MiB table, TINY_STRIDE bytes apart: at 0 (the
 * default) all in one cache line; the third revision's stride puts each in a page of its
 * own, so it does the same work (the same instructions) with cache misses: slower, not more. */
/* TINY_HISTORY spins, on every large block (2 KiB and up), per other size class the process
 * has served TINY_HABIT blocks of: a fresh process measuring one cell pays nothing (start-up
 * serves far fewer of any class); a process that measured other sizes first pays for each.
 * Small blocks never pay. */
#ifndef TINY_HISTORY
#define TINY_HISTORY 0
#endif
#define TINY_LARGE_CLASS 11
#define TINY_HABIT 10000u
#ifndef TINY_STRIDE
#define TINY_STRIDE 0
#endif
#define TINY_READS 8
#define TINY_TABLE (64u << 20)

#define HEADER 16u
#define CLASSES 40
#define CHUNK (64u << 20)

typedef struct {
  uint32_t cls;     /* size class: block of 1 << cls bytes, header included */
  uint32_t offset;  /* from the block's start to the pointer handed out */
  uint64_t spare;
} header_t;

static void* free_lists[CLASSES];
static char *bump, *bump_end;
static volatile int lock_word;

static void lock(void) { while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE)) {} }
static void unlock(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE); }

static unsigned class_of(size_t bytes) {
  unsigned cls = 5;
  while (((size_t)1 << cls) < bytes) ++cls;
  return cls;
}

static char* take_block(unsigned cls) {
  if (free_lists[cls] != NULL) {
    char* block = free_lists[cls];
    free_lists[cls] = *(void**)block;
    return block;
  }
  const size_t bytes = (size_t)1 << cls;
  if (bytes > CHUNK / 4) {
    void* big = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return big == MAP_FAILED ? NULL : big;
  }
  if (bump == NULL || (size_t)(bump_end - bump) < bytes) {
    void* chunk = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (chunk == MAP_FAILED) return NULL;
    bump = chunk;
    bump_end = bump + CHUNK;
  }
  char* block = bump;
  bump += bytes;
  return block;
}

static char far_table[TINY_TABLE];
static volatile size_t far_stride = TINY_STRIDE; /* volatile: the same code in every revision */
static size_t far_at;
static volatile char far_sum;

/* Planted work: spins whose count is a variable, TINY_PLANTED_WORK or the environment's
 * TINY_PLANTED_WORK, so that a build doing a fixed amount more work has its code at the same
 * addresses (docs/statistics.md, "Power on a planted change"). Volatile: read every time. */
#ifndef TINY_PLANTED_WORK
#define TINY_PLANTED_WORK 0
#endif
static volatile int planted_work = TINY_PLANTED_WORK;

/* TINY_WORK_BY_STACK=N: N spins more for each step of 16 bytes (mod 4) the stack starts
 * lower, so that the work a malloc does depends on the process's layout alone (the test of
 * --layouts, tests/layouts_e2e_test.cc). */
__attribute__((constructor)) static void read_planted_work(void) {
  const char* text = getenv("TINY_PLANTED_WORK");
  if (text != NULL && *text != '\0') planted_work = atoi(text);
  const char* by_stack = getenv("TINY_WORK_BY_STACK");
  volatile char here = 0;
  if (by_stack != NULL && *by_stack != '\0')
    planted_work += atoi(by_stack) * (int)(((uintptr_t)&here >> 4) & 3);
}

static void* tiny_allocate(size_t size, size_t align) {
  for (volatile int spin = 0; spin < planted_work; ++spin) {}
  for (volatile int spin = 0; spin < TINY_EXTRA_WORK; ++spin) {}
  char sum = 0;
  for (int i = 0; i < TINY_READS; ++i) {
    far_at = (far_at + far_stride) % TINY_TABLE;
    sum += ((volatile char*)far_table)[far_at]; /* volatile: a read the compiler keeps */
  }
  far_sum = sum;
  if (align < HEADER) align = HEADER;
  if (size > ((size_t)1 << (CLASSES - 2))) {
    errno = ENOMEM;
    return NULL;
  }
  const unsigned cls = class_of(size + HEADER + (align > HEADER ? align : 0));
  if (TINY_HISTORY > 0) {
    static uint32_t served[CLASSES];
    static uint64_t habits;  /* the classes served TINY_HABIT blocks */
    if (served[cls] < TINY_HABIT && ++served[cls] == TINY_HABIT) habits |= (uint64_t)1 << cls;
    if (cls >= TINY_LARGE_CLASS) {
      const int others = __builtin_popcountll(habits & ~((uint64_t)1 << cls));
      for (volatile int spin = 0; spin < TINY_HISTORY * others; ++spin) {}
    }
  }
  lock();
  char* block = take_block(cls);
  unlock();
  if (block == NULL) {
    errno = ENOMEM;
    return NULL;
  }
  uintptr_t user = ((uintptr_t)block + HEADER + align - 1) & ~(uintptr_t)(align - 1);
  header_t* h = (header_t*)(user - HEADER);
  h->cls = cls;
  h->offset = (uint32_t)(user - (uintptr_t)block);
  return (void*)user;
}

size_t malloc_usable_size(void* p) {
  if (p == NULL) return 0;
  const header_t* h = (const header_t*)((char*)p - HEADER);
  return ((size_t)1 << h->cls) - h->offset;
}

void free(void* p) {
  if (p == NULL) return;
  const header_t* h = (const header_t*)((char*)p - HEADER);
  char* block = (char*)p - h->offset;
  const unsigned cls = h->cls;
  if (((size_t)1 << cls) > CHUNK / 4) {
    munmap(block, (size_t)1 << cls);
    return;
  }
  lock();
  *(void**)block = free_lists[cls];
  free_lists[cls] = block;
  unlock();
}

void* malloc(size_t size) { return tiny_allocate(size, HEADER); }

void* calloc(size_t count, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    errno = ENOMEM;
    return NULL;
  }
  void* p = tiny_allocate(bytes, HEADER);
  if (p != NULL) memset(p, 0, bytes);
  return p;
}

void* realloc(void* p, size_t size) {
  if (p == NULL) return malloc(size);
  const size_t usable = malloc_usable_size(p);
  if (size <= usable) return p;
  void* moved = malloc(size);
  if (moved == NULL) return NULL;
  memcpy(moved, p, usable);
  free(p);
  return moved;
}

int posix_memalign(void** out, size_t align, size_t size) {
  if (align < sizeof(void*) || (align & (align - 1)) != 0) return EINVAL;
  void* p = tiny_allocate(size, align);
  if (p == NULL) return ENOMEM;
  *out = p;
  return 0;
}

void* aligned_alloc(size_t align, size_t size) { return tiny_allocate(size, align); }
void* memalign(size_t align, size_t size) { return tiny_allocate(size, align); }

char* strdup(const char* s) {
  const size_t n = strlen(s) + 1;
  char* copy = tiny_allocate(n, HEADER);  /* not through the malloc symbol */
  if (copy != NULL) memcpy(copy, s, n);
  return copy;
}
