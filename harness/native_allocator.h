// The backend linked into this worker, as an Allocator value for AlignedBuffer.
#pragma once

#include "allocators/backend.h"

namespace abench {

struct NativeAllocator {
  void* allocate(std::size_t size, std::size_t align) const noexcept {
    return backend::allocate(size, align);
  }
  void* allocate_zeroed(std::size_t size, std::size_t align) const noexcept {
    return backend::allocate_zeroed(size, align);
  }
  void* grow(void* block, std::size_t old_size, std::size_t new_size,
             std::size_t align) const noexcept {
    return backend::grow(block, old_size, new_size, align);
  }
  void deallocate(void* block, std::size_t size, std::size_t align) const noexcept {
    backend::deallocate(block, size, align);
  }
  std::size_t usable_size(const void* block) const noexcept { return backend::usable_size(block); }
  // true only for an arena, which then gave everything back at once.
  bool release_all() const noexcept { return backend::release_all(); }
};

}  // namespace abench
