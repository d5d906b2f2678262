// Entry points of backend `mimalloc`: portable (malloc & co.), native (mi_*, the sized
// aligned free), and rust (the `mimalloc` crate's GlobalAlloc: aligned calls always).
#pragma once

#include <mimalloc.h>

#include <cstddef>

#include "allocators/calls/portable.h"
#include "allocators/entry_sets.h"

namespace abench::backend {
namespace calls {

// mimalloc aligns small blocks only to their size class (8, 24, ... bytes are 8-aligned).
constexpr std::size_t kMimallocNaturalAlign = 8;

struct MimallocNative {
  static constexpr const char* kName = "native";
  static constexpr const char* kCalls =
      "mi_malloc, mi_zalloc, mi_realloc, mi_free; above natural alignment mi_malloc_aligned, "
      "mi_zalloc_aligned, mi_realloc_aligned, mi_free_size_aligned";
  static constexpr const char* kFunctions =
      "mi_malloc mi_zalloc mi_realloc mi_free mi_malloc_aligned mi_zalloc_aligned mi_realloc_aligned "
      "mi_free_size_aligned";
  static void* allocate(std::size_t size, std::size_t align) noexcept {
    return align <= kMimallocNaturalAlign ? mi_malloc(size) : mi_malloc_aligned(size, align);
  }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
    return align <= kMimallocNaturalAlign ? mi_zalloc(size) : mi_zalloc_aligned(size, align);
  }
  static void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) noexcept {
    return align <= kMimallocNaturalAlign ? mi_realloc(block, new_size) : mi_realloc_aligned(block, new_size, align);
  }
  static void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
    if (align <= kMimallocNaturalAlign)
      mi_free(block);
    else
      mi_free_size_aligned(block, size, align);
  }
  static std::size_t usable_size(const void* block) noexcept { return mi_usable_size(block); }
};

// The `mimalloc` crate (purpleprotocol/mimalloc_rust, src/lib.rs): GlobalAlloc::alloc is
// mi_malloc_aligned(size, align) at every alignment, alloc_zeroed mi_zalloc_aligned,
// realloc mi_realloc_aligned, dealloc mi_free.
struct MimallocRust {
  static constexpr const char* kName = "rust";
  static constexpr const char* kCalls =
      "mimalloc crate: mi_malloc_aligned, mi_zalloc_aligned, mi_realloc_aligned at every alignment, mi_free";
  static constexpr const char* kFunctions = "mi_malloc_aligned mi_zalloc_aligned mi_realloc_aligned mi_free";
  static void* allocate(std::size_t size, std::size_t align) noexcept { return mi_malloc_aligned(size, align); }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept { return mi_zalloc_aligned(size, align); }
  static void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) noexcept {
    return mi_realloc_aligned(block, new_size, align);
  }
  static void deallocate(void* block, std::size_t, std::size_t) noexcept { mi_free(block); }
  static std::size_t usable_size(const void* block) noexcept { return mi_usable_size(block); }
};

}  // namespace calls

using DefaultCalls = calls::MimallocNative;  // allocators/entry_sets.h: the first set offered

template <class F>
decltype(auto) with_entry_set(EntrySet set, F&& f) {
  switch (set) {
    case EntrySet::native: return f(calls::MimallocNative{});
    case EntrySet::rust: return f(calls::MimallocRust{});
    case EntrySet::portable: break;
  }
  return f(calls::Portable<calls::kMimallocNaturalAlign>{});
}

}  // namespace abench::backend
