// Entry points of backend `jemalloc`: native (its fast paths where the request allows, the
// extended API where it must), portable (malloc & co.) and rust (tikv-jemallocator).
#pragma once

#include <jemalloc/jemalloc.h>

#include <bit>
#include <cstddef>

#include "allocators/calls/portable.h"
#include "allocators/entry_sets.h"

namespace abench::backend {
namespace calls {

// jemalloc's 8-byte size class is only 8-aligned.
constexpr std::size_t kJemallocNaturalAlign = 8;

// MALLOCX_ALIGN(a) expands to a call of ffs() in Debian's header; the log2 of a power of
// two is one instruction, so the timed loop pays no extra call for the flag.
inline int align_flag(std::size_t align) noexcept { return MALLOCX_LG_ALIGN(std::countr_zero(align)); }

// jemalloc 5.3's mallocx, rallocx and sdallocx take its slow path (malloc(32) + free: 6.1-6.3
// ns here, mallocx + sdallocx 10.3-10.4, malloc + sdallocx 7.7-8.0), so native calls malloc,
// calloc, realloc and free wherever no flag is needed, and mallocx, rallocx and sdallocx
// with MALLOCX_ALIGN above natural alignment, where only they can say what is wanted.
struct JemallocNative {
  static constexpr const char* kName = "native";
  static constexpr const char* kCalls =
      "malloc, calloc(1, n), realloc, free at natural alignment; mallocx, mallocx(MALLOCX_ZERO), rallocx, "
      "sdallocx with MALLOCX_ALIGN above";
  static constexpr const char* kFunctions = "malloc calloc realloc free mallocx rallocx sdallocx";
  static void* allocate(std::size_t size, std::size_t align) noexcept {
    return align <= kJemallocNaturalAlign ? malloc(size) : mallocx(size, align_flag(align));
  }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
    return align <= kJemallocNaturalAlign ? calloc(1, size) : mallocx(size, align_flag(align) | MALLOCX_ZERO);
  }
  static void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) noexcept {
    return align <= kJemallocNaturalAlign ? realloc(block, new_size) : rallocx(block, new_size, align_flag(align));
  }
  static void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
    if (align <= kJemallocNaturalAlign)
      free(block);
    else
      sdallocx(block, size, align_flag(align));
  }
  static std::size_t usable_size(const void* block) noexcept { return sallocx(const_cast<void*>(block), 0); }
};

// tikv-jemallocator (jemallocator/src/lib.rs): layout_to_flags is 0 when align <= 16
// (max_align_t) and align <= size, else align_flag(align); alloc is malloc or mallocx,
// alloc_zeroed calloc or mallocx | MALLOCX_ZERO, realloc realloc or rallocx, dealloc
// sdallocx(ptr, size, flags).
struct JemallocRust {
  static constexpr const char* kName = "rust";
  static constexpr const char* kCalls =
      "tikv-jemallocator: malloc, calloc, realloc when align <= 16 and align <= size, else mallocx, "
      "mallocx(MALLOCX_ZERO), rallocx with MALLOCX_ALIGN; sdallocx(size, flags)";
  static constexpr const char* kFunctions = "malloc calloc realloc mallocx rallocx sdallocx";
  static int flags(std::size_t align, std::size_t size) noexcept {
    return align <= alignof(std::max_align_t) && align <= size ? 0 : align_flag(align);
  }
  static void* allocate(std::size_t size, std::size_t align) noexcept {
    const int f = flags(align, size);
    return f == 0 ? malloc(size) : mallocx(size, f);
  }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
    const int f = flags(align, size);
    return f == 0 ? calloc(1, size) : mallocx(size, f | MALLOCX_ZERO);
  }
  static void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) noexcept {
    const int f = flags(align, new_size);
    return f == 0 ? realloc(block, new_size) : rallocx(block, new_size, f);
  }
  static void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
    sdallocx(block, size, flags(align, size));
  }
  static std::size_t usable_size(const void* block) noexcept { return sallocx(const_cast<void*>(block), 0); }
};

}  // namespace calls

using DefaultCalls = calls::JemallocNative;  // allocators/entry_sets.h: the first set offered

template <class F>
decltype(auto) with_entry_set(EntrySet set, F&& f) {
  switch (set) {
    case EntrySet::native: return f(calls::JemallocNative{});
    case EntrySet::rust: return f(calls::JemallocRust{});
    case EntrySet::portable: break;
  }
  return f(calls::Portable<calls::kJemallocNaturalAlign>{});
}

}  // namespace abench::backend
