/*
 * abuf: a small aligned, growable byte buffer library, as a buffer-library author would
 * write one, in two revisions that differ only in how they ask for memory:
 *
 *   revision 1 (ABUF_REVISION=1): padded. Asks for capacity + alignment bytes at alignment 1
 *     and rounds the data pointer up; grows by allocate-copy-free.
 *   revision 2 (ABUF_REVISION=2): exact. Asks for exactly capacity bytes at the alignment,
 *     zeroed through the allocator's zeroed call, and grows through the allocator's grow.
 *
 * Both grow to max(2 x capacity, required, 64). Built as two abench plugins
 * (libabuf_v1.so, libabuf_v2.so); see docs/compare.md for the walk-through.
 */
#include <abench/plugin.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifndef ABUF_REVISION
#error "define ABUF_REVISION to 1 (padded) or 2 (exact)"
#endif

typedef struct abuf {
  const abench_allocator* allocator;
  unsigned char* block;
  size_t block_size;
  unsigned char* data;
  size_t length;
  size_t capacity;
  size_t align;
} abuf;

static size_t max_size(size_t a, size_t b) { return a > b ? a : b; }

#if ABUF_REVISION == 1
static unsigned char* align_up(unsigned char* p, size_t align) {
  return p + ((0 - (uintptr_t)p) & (align - 1));
}
#endif

/* Points b at a fresh block for `capacity` bytes (zeroed on request); 0 on success. */
static int take_block(abuf* b, size_t capacity, int zeroed) {
  const abench_allocator* a = b->allocator;
#if ABUF_REVISION == 1
  size_t size = capacity + b->align;
  unsigned char* block = zeroed ? a->allocate_zeroed(a->context, size, 1) : a->allocate(a->context, size, 1);
  if (block == NULL) return -1;
  b->block = block;
  b->block_size = size;
  b->data = align_up(block, b->align);
  b->capacity = (size_t)(block + size - b->data);
#else
  unsigned char* block = zeroed ? a->allocate_zeroed(a->context, capacity, b->align)
                                : a->allocate(a->context, capacity, b->align);
  if (block == NULL) return -1;
  b->block = b->data = block;
  b->block_size = b->capacity = capacity;
#endif
  return 0;
}

static int grow_to(abuf* b, size_t required) {
  size_t capacity = max_size(max_size(2 * b->capacity, required), 64);
#if ABUF_REVISION == 1
  abuf moved = *b;
  if (take_block(&moved, capacity, 0) != 0) return -1;
  memcpy(moved.data, b->data, b->length);
  b->allocator->deallocate(b->allocator->context, b->block, b->block_size, 1);
  *b = moved;
#else
  const abench_allocator* a = b->allocator;
  unsigned char* block = a->grow(a->context, b->block, b->block_size, capacity, b->align);
  if (block == NULL) return -1;
  b->block = b->data = block;
  b->block_size = b->capacity = capacity;
#endif
  return 0;
}

static void* abuf_create(const abench_allocator* allocator, size_t capacity, size_t requested_align,
                         size_t preferred_align, int zeroed) {
  abuf* b = malloc(sizeof *b); /* the handle itself: a plain malloc, as libraries do */
  if (b == NULL) return NULL;
  b->allocator = allocator;
  b->align = max_size(requested_align, preferred_align);
  b->length = 0;
  if (take_block(b, capacity, zeroed) != 0) {
    free(b);
    return NULL;
  }
  if (zeroed) b->length = capacity;
  return b;
}

static int abuf_reserve(void* buffer, size_t additional) {
  abuf* b = buffer;
  return b->length + additional > b->capacity ? grow_to(b, b->length + additional) : 0;
}

static int abuf_append(void* buffer, const void* bytes, size_t count) {
  abuf* b = buffer;
  if (abuf_reserve(b, count) != 0) return -1;
  memcpy(b->data + b->length, bytes, count);
  b->length += count;
  return 0;
}

static void* abuf_data(void* buffer) { return ((abuf*)buffer)->data; }
static size_t abuf_length(const void* buffer) { return ((const abuf*)buffer)->length; }
static size_t abuf_capacity(const void* buffer) { return ((const abuf*)buffer)->capacity; }

static void abuf_destroy(void* buffer) {
  abuf* b = buffer;
  b->allocator->deallocate(b->allocator->context, b->block, b->block_size, ABUF_REVISION == 1 ? 1 : b->align);
  free(b);
}

static const abench_buffer_subject kSubject = {abuf_create, abuf_reserve, abuf_append, abuf_data,
                                               abuf_length, abuf_capacity, abuf_destroy};

const abench_plugin* abench_plugin_v1(void) {
  static const abench_plugin plugin = {ABENCH_PLUGIN_ABI_VERSION, "abuf", ABUF_REVISION == 1 ? "1 (padded)" : "2 (exact)",
                                       &kSubject, NULL};
  return &plugin;
}
