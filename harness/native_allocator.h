// The backend linked into this worker, through one of its entry-point sets, as an
// Allocator value for AlignedBuffer and the workloads.
//
// ABENCH_BACKEND_CALLS names the backend's calls header (allocators/calls/<name>.h); every
// file that includes this one is compiled once per backend (cmake/AbenchWorker.cmake), so
// the allocator's calls are inlined into the timed loops: the loop calls malloc, mi_malloc
// or mallocx directly, as the user's program does, with no adapter function between.
#pragma once

#include ABENCH_BACKEND_CALLS

namespace abench {

template <class Calls = backend::DefaultCalls>
struct NativeAllocator {
  using EntryPoints = Calls;
  void* allocate(std::size_t size, std::size_t align) const noexcept { return Calls::allocate(size, align); }
  void* allocate_zeroed(std::size_t size, std::size_t align) const noexcept {
    return Calls::allocate_zeroed(size, align);
  }
  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const noexcept {
    return Calls::grow(block, old_size, new_size, align);
  }
  void deallocate(void* block, std::size_t size, std::size_t align) const noexcept {
    Calls::deallocate(block, size, align);
  }
  std::size_t usable_size(const void* block) const noexcept { return Calls::usable_size(block); }
  // true only for an arena, which then gave everything back at once.
  bool release_all() const noexcept {
    if constexpr (requires { Calls::release_all(); }) return Calls::release_all();
    return false;
  }
};

// Calls f(NativeAllocator<Calls>{}) for the entry-point set `set` of this backend.
template <class F>
decltype(auto) with_native_allocator(EntrySet set, F&& f) {
  return backend::with_entry_set(set, [&](auto calls) { return f(NativeAllocator<decltype(calls)>{}); });
}

}  // namespace abench
