/*
 * abench plugin ABI, version 1.
 *
 * A plugin is a shared object holding a subject under test, loaded by an abench worker
 * with dlopen. It exports one function, abench_plugin_v1, returning a description of
 * itself and of exactly one subject:
 *
 *   - a buffer subject: an aligned, growable byte buffer library. abench runs the buffer
 *     workloads (allocate, zeroed, grow, append) on it, and hands it the worker backend's
 *     allocation interface so that it can allocate through the same allocator; it may also
 *     call malloc itself (counting runs see both);
 *   - an allocator subject: abench runs the workloads on its built-in buffer model over it.
 *
 * Pure C, so a plugin can be written in C, C++ or anything with a C ABI. Link against the
 * CMake target abench::plugin (find_package(abench)) to get this header.
 */
#ifndef ABENCH_PLUGIN_H
#define ABENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ABENCH_PLUGIN_ABI_VERSION 1u
#define ABENCH_PLUGIN_ENTRY "abench_plugin_v1"

/*
 * An allocation interface. Every function receives `context` first. align is a power of
 * two; a block must be aligned to it. Functions return NULL on failure. grow returns a
 * block holding the first min(old_size, new_size) bytes of `block` and releases `block`
 * unless it returns NULL. deallocate receives the size and alignment of the request that
 * made the block.
 */
typedef struct abench_allocator {
  void* context;
  void* (*allocate)(void* context, size_t size, size_t align);
  void* (*allocate_zeroed)(void* context, size_t size, size_t align);
  void* (*grow)(void* context, void* block, size_t old_size, size_t new_size, size_t align);
  void (*deallocate)(void* context, void* block, size_t size, size_t align);
  size_t (*usable_size)(void* context, const void* block);
} abench_allocator;

/*
 * A buffer subject. create returns NULL on failure; with zeroed != 0 the buffer holds
 * `capacity` zero bytes (length == capacity), else it is empty with room for `capacity`.
 * Its data must be aligned to at least requested_align; preferred_align is the library's
 * to honour or not. reserve makes room for `additional` bytes beyond the length; reserve
 * and append return 0 on success. `allocator` stays valid until destroy.
 */
typedef struct abench_buffer_subject {
  void* (*create)(const abench_allocator* allocator, size_t capacity, size_t requested_align, size_t preferred_align,
                  int zeroed);
  int (*reserve)(void* buffer, size_t additional);
  int (*append)(void* buffer, const void* bytes, size_t count);
  void* (*data)(void* buffer);
  size_t (*length)(const void* buffer);
  size_t (*capacity)(const void* buffer);
  void (*destroy)(void* buffer);
} abench_buffer_subject;

typedef struct abench_plugin {
  uint32_t abi_version; /* ABENCH_PLUGIN_ABI_VERSION */
  const char* name;
  const char* version;
  const abench_buffer_subject* buffer; /* exactly one of buffer and allocator is non-NULL */
  const abench_allocator* allocator;
} abench_plugin;

/* The one symbol a plugin exports. */
typedef const abench_plugin* (*abench_plugin_entry)(void);
const abench_plugin* abench_plugin_v1(void);

#ifdef __cplusplus
}
#endif

#endif /* ABENCH_PLUGIN_H */
