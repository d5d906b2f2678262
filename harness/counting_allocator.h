// An Allocator that counts the harness's allocation-interface calls for the counting
// worker: one request per allocate, zeroed allocate or grow, whatever native calls the
// backend makes for it, with the interposer silenced meanwhile (harness/counters.h).
#pragma once

#include <cstdint>

#include "harness/counters.h"

namespace abench {

template <class Inner>
struct CountingAllocator {
  Inner inner;

  void* allocate(std::size_t size, std::size_t align) const {
    InterfaceCallScope scope;
    void* block = inner.allocate(size, align);
    count_request(block, size, true);
    return block;
  }
  void* allocate_zeroed(std::size_t size, std::size_t align) const {
    InterfaceCallScope scope;
    void* block = inner.allocate_zeroed(size, align);
    count_request(block, size, true);
    return block;
  }
  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const {
    InterfaceCallScope scope;
    // The old block's address only identifies it in the counters' books (it is never
    // dereferenced), so it is kept as a number across the call that may free it.
    const auto old_address = reinterpret_cast<std::uintptr_t>(block);
    void* grown = inner.grow(block, old_size, new_size, align);
    count_resize(old_address, grown, new_size, true);
    return grown;
  }
  void deallocate(void* block, std::size_t size, std::size_t align) const {
    InterfaceCallScope scope;
    count_free(block, true);
    inner.deallocate(block, size, align);
  }
  std::size_t usable_size(const void* block) const { return inner.usable_size(block); }
  bool release_all() const {
    if constexpr (requires { inner.release_all(); }) return inner.release_all();
    return false;
  }
};

}  // namespace abench
