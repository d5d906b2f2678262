// Backend `system`: glibc malloc.
// Natural alignment: malloc/calloc/realloc. Above it: posix_memalign (plus memset for
// zeroed, as there is no aligned calloc) and allocate-copy-free for growth, as there is
// no aligned realloc.
#include <gnu/libc-version.h>
#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
namespace {
// The alignment plain malloc guarantees for every size: glibc aligns every block to 2 * sizeof(size_t) = 16, whatever its size.
constexpr std::size_t kNaturalAlign = alignof(std::max_align_t);
}  // namespace

Identity identify() {
  return identity_from_malloc_object("system", std::string("glibc ") + gnu_get_libc_version(),
                                     "libc.so");
}

void* allocate(std::size_t size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) return std::malloc(size);
  void* block = nullptr;
  return posix_memalign(&block, align, size) == 0 ? block : nullptr;
}

void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) return std::calloc(1, size);
  void* block = allocate(size, align);
  if (block != nullptr) std::memset(block, 0, size);
  return block;
}

void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) return std::realloc(block, new_size);
  void* moved = allocate(new_size, align);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, block, std::min(old_size, new_size));
  std::free(block);
  return moved;
}

void deallocate(void* block, std::size_t, std::size_t) noexcept { std::free(block); }

std::size_t usable_size(const void* block) noexcept {
  return malloc_usable_size(const_cast<void*>(block));
}

bool release_all() noexcept { return false; }

ResidentFigure allocator_resident() {
  // With an allocator preloaded, glibc's statistics describe an allocator nobody uses.
  if (const char* preload = std::getenv("ABENCH_EXPECT_MALLOC_FROM"); preload && *preload) return {};
  const struct mallinfo2 info = mallinfo2();
  return {true, info.arena + info.hblkhd, "glibc mallinfo2 arena + hblkhd"};
}


}  // namespace abench::backend
