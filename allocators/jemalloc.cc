// Backend `jemalloc`: linked, so jemalloc serves the whole process's malloc.
// Uses the non-standard API: mallocx/rallocx with flags, sized free with sdallocx.
#include <jemalloc/jemalloc.h>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
namespace {
// The alignment plain malloc guarantees for every size: jemalloc's 8-byte size class is only 8-aligned.
constexpr std::size_t kNaturalAlign = 8;
// Flags are only added above natural alignment, where they change what is asked for.
int align_flags(std::size_t align) { return align <= kNaturalAlign ? 0 : MALLOCX_ALIGN(align); }
}  // namespace

Identity identify() {
  const char* version = "unknown";
  std::size_t len = sizeof(version);
  mallctl("version", &version, &len, nullptr, 0);
  return identity_from_malloc_object("jemalloc", version, "libjemalloc");
}

void* allocate(std::size_t size, std::size_t align) noexcept {
  return mallocx(size, align_flags(align));
}

void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
  return mallocx(size, align_flags(align) | MALLOCX_ZERO);
}

void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) noexcept {
  return rallocx(block, new_size, align_flags(align));
}

void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
  sdallocx(block, size, align_flags(align));
}

std::size_t usable_size(const void* block) noexcept {
  return sallocx(const_cast<void*>(block), 0);
}

}  // namespace abench::backend
