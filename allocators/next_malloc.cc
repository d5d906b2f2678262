// backend::raw for the backends whose malloc is glibc's (system, arena), or that of an
// allocator preloaded into their worker.
#include <dlfcn.h>

#include <atomic>
#include <cstring>

#include "allocators/backend.h"

namespace abench::backend {

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
