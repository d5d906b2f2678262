// Backend `system`: glibc malloc.
// Natural alignment: malloc/calloc/realloc. Above it: posix_memalign (plus memset for
// zeroed, as there is no aligned calloc) and allocate-copy-free for growth, as there is
// no aligned realloc.
#include <gnu/libc-version.h>
#include <malloc.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
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

ResidentFigure allocator_resident() {
  // With an allocator preloaded, glibc's statistics describe an allocator nobody uses.
  if (const char* preload = std::getenv("ABENCH_EXPECT_MALLOC_FROM"); preload && *preload) return {};
  const struct mallinfo2 info = mallinfo2();
  return {true, info.arena + info.hblkhd, "glibc mallinfo2 arena + hblkhd"};
}

// The malloc family that comes after the executable in symbol order: glibc's, or that of
// an allocator preloaded into this worker. Resolved on first use with dlsym(RTLD_NEXT);
// dlsym may itself allocate, and those few early requests are served from a static
// bootstrap area that is never freed.
namespace raw {
namespace {

struct Next {
  void* (*malloc)(std::size_t);
  void* (*calloc)(std::size_t, std::size_t);
  void* (*realloc)(void*, std::size_t);
  void (*free)(void*);
  void* (*memalign)(std::size_t, std::size_t);
};
Next g_next;
std::atomic<int> g_state{0};  // 0 unresolved, 1 resolving, 2 resolved
alignas(64) unsigned char g_bootstrap[16384];
std::size_t g_bootstrap_used = 0;

void* bootstrap_allocate(std::size_t size) {
  const std::size_t rounded = (size + 63) & ~std::size_t{63};
  if (g_bootstrap_used + rounded > sizeof g_bootstrap) return nullptr;
  void* block = g_bootstrap + g_bootstrap_used;
  g_bootstrap_used += rounded;
  return block;  // static storage: already zero
}

bool in_bootstrap(const void* block) {
  const auto* p = static_cast<const unsigned char*>(block);
  return p >= g_bootstrap && p < g_bootstrap + sizeof g_bootstrap;
}

// True once g_next is usable; false while resolving (callers use the bootstrap area).
bool resolved() {
  if (g_state.load(std::memory_order_acquire) == 2) return true;
  int expected = 0;
  if (!g_state.compare_exchange_strong(expected, 1)) return g_state.load() == 2;
  g_next.malloc = reinterpret_cast<void* (*)(std::size_t)>(dlsym(RTLD_NEXT, "malloc"));
  g_next.calloc = reinterpret_cast<void* (*)(std::size_t, std::size_t)>(dlsym(RTLD_NEXT, "calloc"));
  g_next.realloc = reinterpret_cast<void* (*)(void*, std::size_t)>(dlsym(RTLD_NEXT, "realloc"));
  g_next.free = reinterpret_cast<void (*)(void*)>(dlsym(RTLD_NEXT, "free"));
  g_next.memalign = reinterpret_cast<void* (*)(std::size_t, std::size_t)>(dlsym(RTLD_NEXT, "memalign"));
  g_state.store(2, std::memory_order_release);
  return true;
}

}  // namespace

void* malloc(std::size_t size) noexcept { return resolved() ? g_next.malloc(size) : bootstrap_allocate(size); }
void* calloc(std::size_t count, std::size_t size) noexcept {
  return resolved() ? g_next.calloc(count, size) : bootstrap_allocate(count * size);
}
void* realloc(void* block, std::size_t size) noexcept {
  if (block != nullptr && in_bootstrap(block)) {  // rare: grow a bootstrap block by copying
    void* moved = malloc(size);
    if (moved != nullptr) std::memcpy(moved, block, size);
    return moved;
  }
  return resolved() ? g_next.realloc(block, size) : bootstrap_allocate(size);
}
void free(void* block) noexcept {
  if (block == nullptr || in_bootstrap(block)) return;
  if (resolved()) g_next.free(block);
}
void* memalign(std::size_t align, std::size_t size) noexcept {
  return resolved() ? g_next.memalign(align, size) : nullptr;
}

}  // namespace raw

}  // namespace abench::backend
