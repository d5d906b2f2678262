// Backend `jemalloc`: linked, so jemalloc serves the whole process's malloc; its calls
// are allocators/calls/jemalloc.h.
#include <jemalloc/jemalloc.h>

#include <cstdint>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
Identity identify() {
  const char* version = "unknown";
  std::size_t len = sizeof(version);
  mallctl("version", &version, &len, nullptr, 0);
  return identity_from_malloc_object("jemalloc", version, "libjemalloc", ABENCH_ALLOCATOR_FILE,
                                     reinterpret_cast<const void*>(&mallocx));
}

ResidentFigure allocator_resident() {
  // Statistics are cached; bumping the epoch refreshes them.
  std::uint64_t epoch = 1;
  std::size_t epoch_len = sizeof epoch;
  mallctl("epoch", &epoch, &epoch_len, &epoch, epoch_len);
  std::size_t resident = 0, len = sizeof resident;
  if (mallctl("stats.resident", &resident, &len, nullptr, 0) != 0) return {};
  return {true, resident, "jemalloc stats.resident"};
}

// mallocx and rallocx must not be asked for 0 bytes; malloc(0) and realloc(p, 0) have
// meanings of their own.
namespace raw {
void* malloc(std::size_t size) noexcept { return mallocx(size ? size : 1, 0); }
void* calloc(std::size_t count, std::size_t size) noexcept {
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes)) return nullptr;
  return mallocx(bytes ? bytes : 1, MALLOCX_ZERO);
}
void* realloc(void* block, std::size_t size) noexcept {
  if (block == nullptr) return malloc(size);
  return rallocx(block, size ? size : 1, 0);
}
void free(void* block) noexcept {
  if (block != nullptr) dallocx(block, 0);
}
void* memalign(std::size_t align, std::size_t size) noexcept { return mallocx(size ? size : 1, MALLOCX_ALIGN(align)); }
}  // namespace raw

}  // namespace abench::backend
