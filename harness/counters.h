// Allocation counters of the counting worker (never linked into a timed worker's hot path:
// the timed loop uses NativeAllocator, which counts nothing).
//
// Two layers feed them: CountingAllocator counts the harness's own allocation interface
// (allocate, zeroed, grow, deallocate: one request each, whatever native calls the backend
// makes), and harness/interpose.cc counts malloc-family calls made by any other code (a
// plugin, libstdc++, libc). While a CountingAllocator call is in progress the interposer
// does not count, so a backend that implements `allocate` with malloc is counted once.
#pragma once

#include <cstddef>
#include <cstdint>

namespace abench {

struct AllocationCounters {
  std::uint64_t requests = 0;  // allocations and grows that reached the allocator
  std::uint64_t frees = 0;
  std::uint64_t requested_bytes = 0;  // sum of the sizes asked for
  std::uint64_t last_request_bytes = 0;
  const void* last_request_block = nullptr;  // the block the last request returned
  std::uint64_t live_bytes = 0;              // requested bytes of blocks not yet freed
  std::uint64_t peak_live_bytes = 0;
  bool live_tracking_overflow = false;
};

// Counting happens only between start_counting() and stop_counting(); outside, the
// process's own bookkeeping (JSON, I/O) is not counted.
void start_counting();  // resets every counter
void stop_counting();
void resume_counting();  // after stop_counting, without a reset
const AllocationCounters& counters();
void reset_peak_live_bytes();  // peak := current live bytes

// Hooks for the two layers. `interface_call` is true for CountingAllocator.
void count_request(const void* block, std::size_t size, bool interface_call);
// The old block by address: it may already be freed (realloc), so it is a number, never a pointer.
void count_resize(std::uintptr_t old_block, const void* new_block, std::size_t new_size, bool interface_call);
void count_free(const void* block, bool interface_call);

// Set while the harness's allocation interface, or an interposed call, is inside the
// allocator: what the allocator calls meanwhile is not counted again.
class InterfaceCallScope {
 public:
  InterfaceCallScope();
  ~InterfaceCallScope();
  InterfaceCallScope(const InterfaceCallScope&) = delete;
  InterfaceCallScope& operator=(const InterfaceCallScope&) = delete;
};
bool inside_interface_call();

// True in a counting worker (harness/interpose.cc is linked in and its malloc is in use).
bool counting_interposer_active();

}  // namespace abench
