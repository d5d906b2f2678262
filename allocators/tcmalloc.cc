// Backend `tcmalloc` (gperftools, minimal build): linked, so tcmalloc serves the whole
// process's malloc. Uses its malloc-compatible tc_* entry points; like glibc it has no
// aligned calloc or aligned realloc.
#include <gperftools/malloc_extension_c.h>
#include <gperftools/tcmalloc.h>

#include <algorithm>
#include <cstring>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
namespace {
// The alignment plain malloc guarantees for every size: tcmalloc's 8-byte size class is only 8-aligned.
constexpr std::size_t kNaturalAlign = 8;
}  // namespace

Identity identify() {
  int major = 0, minor = 0;
  const char* patch = "";
  tc_version(&major, &minor, &patch);
  return identity_from_malloc_object(
      "tcmalloc", std::to_string(major) + "." + std::to_string(minor) + patch, "libtcmalloc");
}

void* allocate(std::size_t size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) return tc_malloc(size);
  void* block = nullptr;
  return tc_posix_memalign(&block, align, size) == 0 ? block : nullptr;
}

void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) return tc_calloc(1, size);
  void* block = allocate(size, align);
  if (block != nullptr) std::memset(block, 0, size);
  return block;
}

void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) return tc_realloc(block, new_size);
  void* moved = allocate(new_size, align);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, block, std::min(old_size, new_size));
  tc_free(block);
  return moved;
}

void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) {
    tc_free_sized(block, size);
  } else {
    tc_free(block);  // tc_free_sized assumes the natural size class of `size`
  }
}

std::size_t usable_size(const void* block) noexcept {
  return tc_malloc_size(const_cast<void*>(block));
}

bool release_all() noexcept { return false; }

ResidentFigure allocator_resident() {
  std::size_t heap = 0;
  if (!MallocExtension_GetNumericProperty("generic.heap_size", &heap)) return {};
  return {true, heap, "tcmalloc generic.heap_size"};
}

namespace raw {
void* malloc(std::size_t size) noexcept { return tc_malloc(size); }
void* calloc(std::size_t count, std::size_t size) noexcept { return tc_calloc(count, size); }
void* realloc(void* block, std::size_t size) noexcept { return tc_realloc(block, size); }
void free(void* block) noexcept { tc_free(block); }
void* memalign(std::size_t align, std::size_t size) noexcept { return tc_memalign(align, size); }
}  // namespace raw

}  // namespace abench::backend
