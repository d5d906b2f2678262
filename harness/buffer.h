// AlignedBuffer: an aligned, growable byte buffer whose allocation strategy is a policy,
// the trade-off buffer-library authors argue about (over-allocate and align by hand, or
// ask the allocator for exactly what is needed at the alignment needed).
//
// Glossary
//   R, P, A    requested, preferred and effective alignment; A = max(R, P).
//   block      what the allocator returned; request_bytes is what was asked for it.
//   data       where the bytes live; capacity is how many fit from data on.
//
// Invariants (checked by tests/buffer_test.cc for every backend)
//   data % A == 0, length <= capacity, bytes [0, length) survive every growth.
//   exact:   the request is (capacity, A); block == data; capacity is what was asked.
//   padded:  the request is (asked + A, alignment 1); data = align_up(block, A);
//            capacity = block + request_bytes - data, so it is >= asked and depends on
//            the address the allocator returned.
//   growth:  when a length L > capacity is needed, the new capacity is
//            max(2 * capacity, L, 256). exact grows through the allocator's grow
//            (in place or moving); padded grows the block at alignment 1 and, if the
//            block moved so that data's offset in it changed, moves the bytes to the
//            new aligned position.
//
// The Allocator is a small value type (see allocators/backend.h for the contract):
// NativeAllocator in the timed runs, CheckedAllocator in verification passes.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "harness/layout.h"

namespace abench {

inline constexpr std::size_t kMinGrowthCapacity = 256;

// The growth rule shared by both policies.
inline constexpr std::size_t grown_capacity(std::size_t capacity, std::size_t required) {
  return std::max({2 * capacity, required, kMinGrowthCapacity});
}

// Thrown when the allocator returns nullptr; a cell that throws is reported as failed.
struct AllocationFailed : std::bad_alloc {
  const char* what() const noexcept override { return "allocator returned nullptr"; }
};

enum class Fill { none, zeroed };

template <class Allocator>
class AlignedBuffer {
 public:
  // A buffer of `capacity` bytes. Fill::zeroed makes length == capacity, all zero.
  AlignedBuffer(Allocator allocator, std::size_t capacity, Alignment alignment, Policy policy, Fill fill = Fill::none)
      : allocator_(allocator), align_(alignment.effective()), policy_(policy) {
    const bool zeroed = fill == Fill::zeroed;
    if (policy_ == Policy::exact) {
      request_bytes_ = capacity;
      block_ = static_cast<std::byte*>(zeroed ? allocator_.allocate_zeroed(capacity, align_)
                                              : allocator_.allocate(capacity, align_));
      if (block_ == nullptr) [[unlikely]]
        throw AllocationFailed();
      data_ = block_;
      capacity_ = capacity;
    } else {
      request_bytes_ = capacity + align_;
      block_ = static_cast<std::byte*>(zeroed ? allocator_.allocate_zeroed(request_bytes_, 1)
                                              : allocator_.allocate(request_bytes_, 1));
      if (block_ == nullptr) [[unlikely]]
        throw AllocationFailed();
      data_ = align_up(block_);
      capacity_ = static_cast<std::size_t>(block_ + request_bytes_ - data_);
    }
    if (zeroed) length_ = capacity;
  }

  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;

  ~AlignedBuffer() { allocator_.deallocate(block_, request_bytes_, policy_ == Policy::exact ? align_ : 1); }

  // Makes room for `additional` more bytes beyond the length.
  void reserve(std::size_t additional) {
    if (length_ + additional > capacity_) grow_to(length_ + additional);
  }

  void append(const std::byte* source, std::size_t count) {
    reserve(count);
    std::memcpy(data_ + length_, source, count);
    length_ += count;
  }

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t length() const { return length_; }
  std::size_t capacity() const { return capacity_; }
  const std::byte* block() const { return block_; }
  std::size_t request_bytes() const { return request_bytes_; }
  std::size_t alignment() const { return align_; }

 private:
  // align_ is a power of two: a mask, not a division, so padded pays no extra divide.
  std::byte* align_up(std::byte* p) const {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    return p + ((0 - address) & (align_ - 1));
  }

  // Out of line: growth is the rare path of append.
  [[gnu::noinline]] void grow_to(std::size_t required) {
    const std::size_t new_capacity = grown_capacity(capacity_, required);
    if (policy_ == Policy::exact) {
      auto* grown = static_cast<std::byte*>(allocator_.grow(block_, request_bytes_, new_capacity, align_));
      if (grown == nullptr) [[unlikely]]
        throw AllocationFailed();
      block_ = data_ = grown;
      request_bytes_ = capacity_ = new_capacity;
      return;
    }
    const std::size_t old_offset = static_cast<std::size_t>(data_ - block_);
    const std::size_t new_request = new_capacity + align_;
    auto* grown = static_cast<std::byte*>(allocator_.grow(block_, request_bytes_, new_request, 1));
    if (grown == nullptr) [[unlikely]]
      throw AllocationFailed();
    std::byte* new_data = align_up(grown);
    // The grow preserved the block's bytes, not their alignment: the data now sits at
    // the old offset and must move if the new block needs a different one.
    if (static_cast<std::size_t>(new_data - grown) != old_offset) std::memmove(new_data, grown + old_offset, length_);
    block_ = grown;
    data_ = new_data;
    request_bytes_ = new_request;
    capacity_ = static_cast<std::size_t>(block_ + request_bytes_ - data_);
  }

  [[no_unique_address]] Allocator allocator_;
  std::byte* block_ = nullptr;
  std::byte* data_ = nullptr;
  std::size_t request_bytes_ = 0;
  std::size_t capacity_ = 0;
  std::size_t length_ = 0;
  std::size_t align_;
  Policy policy_;
};

}  // namespace abench
