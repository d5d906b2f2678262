// An Allocator that checks every answer of the allocator underneath against the contract
// in allocators/backend.h, for the verification pass before a cell is timed. A broken
// contract is an allocator finding: it throws ContractViolation with the evidence
// (allocator, call, size, alignment, address) and never retries or adjusts the request.
#pragma once

#include "harness/black_box.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace abench {

struct ContractViolation : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class Inner>
class CheckedAllocator {
 public:
  CheckedAllocator(Inner inner, const char* allocator_name)
      : inner_(inner), name_(allocator_name) {}

  void* allocate(std::size_t size, std::size_t align) const {
    void* block = inner_.allocate(size, align);
    check_block("allocate", block, size, align);
    return block;
  }

  void* allocate_zeroed(std::size_t size, std::size_t align) const {
    void* block = inner_.allocate_zeroed(size, align);
    check_block("allocate_zeroed", block, size, align);
    const auto* bytes = static_cast<const unsigned char*>(block);
    for (std::size_t i = 0; i < size; ++i)
      if (bytes[i] != 0) fail("allocate_zeroed", size, align, block, "byte " + std::to_string(i) + " is not zero");
    return block;
  }

  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const {
    const auto* old_bytes = static_cast<const unsigned char*>(block);
    const std::size_t kept = old_size < new_size ? old_size : new_size;
    std::vector<unsigned char> before(old_bytes, old_bytes + kept);
    void* grown = inner_.grow(block, old_size, new_size, align);
    check_block("grow", grown, new_size, align);
    if (std::memcmp(grown, before.data(), kept) != 0)
      fail("grow", new_size, align, grown,
           "contents lost: the first " + std::to_string(kept) + " bytes differ after growing from " +
               std::to_string(old_size));
    return grown;
  }

  void deallocate(void* block, std::size_t size, std::size_t align) const {
    inner_.deallocate(block, size, align);
  }

  std::size_t usable_size(const void* block) const { return inner_.usable_size(block); }
  bool release_all() const {
    if constexpr (requires { inner_.release_all(); }) return inner_.release_all();
    return false;
  }

 private:
  void check_block(const char* call, void* block, std::size_t size, std::size_t align) const {
    if (block == nullptr) fail(call, size, align, block, "returned nullptr");
    if (opaque(reinterpret_cast<std::uintptr_t>(block)) % align != 0)
      fail(call, size, align, block, "block is not aligned to " + std::to_string(align));
    const std::size_t usable = inner_.usable_size(block);
    if (usable < size)
      fail(call, size, align, block, "usable size " + std::to_string(usable) + " < requested size");
  }

  [[noreturn]] void fail(const char* call, std::size_t size, std::size_t align, const void* block,
                         const std::string& what) const {
    char address[32];
    std::snprintf(address, sizeof address, "%p", block);
    throw ContractViolation(std::string(name_) + " broke its contract: " + call + "(size=" +
                            std::to_string(size) + ", align=" + std::to_string(align) +
                            ") at " + address + ": " + what);
  }

  Inner inner_;
  const char* name_;
};

}  // namespace abench
