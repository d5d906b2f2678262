// Entry points of backend `tcmalloc` (gperftools): portable (malloc & co.) and native (its
// tc_* calls, sized free at natural alignment). Like glibc it has no aligned calloc or realloc.
#pragma once

#include <gperftools/tcmalloc.h>

#include <cstddef>
#include <cstring>

#include "allocators/calls/portable.h"
#include "allocators/entry_sets.h"

namespace abench::backend {
namespace calls {

// tcmalloc's 8-byte size class is only 8-aligned.
constexpr std::size_t kTcmallocNaturalAlign = 8;

struct TcmallocNative {
  static constexpr const char* kName = "native";
  static constexpr const char* kCalls =
      "tc_malloc, tc_calloc, tc_realloc, tc_free_sized; above natural alignment tc_posix_memalign (+ memset, "
      "+ memcpy and tc_free for grow) and tc_free";
  static constexpr const char* kFunctions = "tc_malloc tc_calloc tc_realloc tc_free_sized tc_posix_memalign tc_free";
  static void* allocate(std::size_t size, std::size_t align) noexcept {
    if (align <= kTcmallocNaturalAlign) return tc_malloc(size);
    void* block = nullptr;
    return tc_posix_memalign(&block, align, size) == 0 ? block : nullptr;
  }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
    if (align <= kTcmallocNaturalAlign) return tc_calloc(1, size);
    void* block = allocate(size, align);
    if (block != nullptr) std::memset(block, 0, size);
    return block;
  }
  static void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) noexcept {
    if (align <= kTcmallocNaturalAlign) return tc_realloc(block, new_size);
    void* moved = allocate(new_size, align);
    if (moved == nullptr) return nullptr;
    std::memcpy(moved, block, old_size < new_size ? old_size : new_size);
    tc_free(block);
    return moved;
  }
  static void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
    if (align <= kTcmallocNaturalAlign)
      tc_free_sized(block, size);
    else
      tc_free(block);  // tc_free_sized assumes the natural size class of `size`
  }
  static std::size_t usable_size(const void* block) noexcept { return tc_malloc_size(const_cast<void*>(block)); }
};

}  // namespace calls

using DefaultCalls = calls::TcmallocNative;  // allocators/entry_sets.h: the first set offered

template <class F>
decltype(auto) with_entry_set(EntrySet set, F&& f) {
  if (set == EntrySet::native) return f(calls::TcmallocNative{});
  return f(calls::Portable<calls::kTcmallocNaturalAlign>{});
}

}  // namespace abench::backend
