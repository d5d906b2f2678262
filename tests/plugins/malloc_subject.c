/*
 * Test plugin: an allocator subject over the C allocator (whatever serves malloc in the
 * worker), optionally doing extra work on every allocation (TEST_EXTRA_WORK iterations of
 * a dependent loop), so a test has a candidate that is really slower by a known margin.
 */
#include <abench/plugin.h>

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#ifndef TEST_EXTRA_WORK
#define TEST_EXTRA_WORK 0
#endif

static void extra_work(void) {
#if TEST_EXTRA_WORK > 0
  volatile unsigned sink = 0;
  for (unsigned i = 0; i < TEST_EXTRA_WORK; ++i) sink = sink * 31u + i;
#endif
}

static void* subject_allocate(void* context, size_t size, size_t align) {
  (void)context;
  extra_work();
  void* block = NULL;
  if (align < sizeof(void*)) align = sizeof(void*);
  return posix_memalign(&block, align, size ? size : 1) == 0 ? block : NULL;
}

static void* subject_allocate_zeroed(void* context, size_t size, size_t align) {
  void* block = subject_allocate(context, size, align);
  if (block != NULL) memset(block, 0, size);
  return block;
}

static void* subject_grow(void* context, void* block, size_t old_size, size_t new_size, size_t align) {
  void* moved = subject_allocate(context, new_size, align);
  if (moved == NULL) return NULL;
  memcpy(moved, block, old_size < new_size ? old_size : new_size);
  free(block);
  return moved;
}

static void subject_deallocate(void* context, void* block, size_t size, size_t align) {
  (void)context;
  (void)size;
  (void)align;
  free(block);
}

static size_t subject_usable_size(void* context, const void* block) {
  (void)context;
  return malloc_usable_size((void*)block);
}

static const abench_allocator kAllocator = {NULL, subject_allocate, subject_allocate_zeroed, subject_grow,
                                            subject_deallocate, subject_usable_size};

const abench_plugin* abench_plugin_v1(void) {
  static const abench_plugin plugin = {ABENCH_PLUGIN_ABI_VERSION, "malloc_subject",
                                       TEST_EXTRA_WORK ? "slow" : "plain", NULL, &kAllocator};
  return &plugin;
}
