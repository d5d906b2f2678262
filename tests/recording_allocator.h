// Test helper: an Allocator that forwards to another and records every call, so tests
// can compare the request sequence with one derived from the growth rule by hand.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace abench::testing {

struct Call {
  std::string op;  // allocate, allocate_zeroed, grow, deallocate
  std::size_t size;
  std::size_t align;
  bool operator==(const Call&) const = default;
};

template <class Inner>
struct RecordingAllocator {
  Inner inner;
  std::vector<Call>* calls;

  void* allocate(std::size_t size, std::size_t align) const {
    calls->push_back({"allocate", size, align});
    return inner.allocate(size, align);
  }
  void* allocate_zeroed(std::size_t size, std::size_t align) const {
    calls->push_back({"allocate_zeroed", size, align});
    return inner.allocate_zeroed(size, align);
  }
  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const {
    calls->push_back({"grow", new_size, align});
    return inner.grow(block, old_size, new_size, align);
  }
  void deallocate(void* block, std::size_t size, std::size_t align) const {
    calls->push_back({"deallocate", size, align});
    inner.deallocate(block, size, align);
  }
  std::size_t usable_size(const void* block) const { return inner.usable_size(block); }
};

}  // namespace abench::testing
