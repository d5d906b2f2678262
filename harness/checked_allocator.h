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
  CheckedAllocator(Inner inner, const char* allocator_name) : inner_(inner), name_(allocator_name) {}

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
      if (bytes[i] != 0) {
        const auto address = reinterpret_cast<std::uintptr_t>(block);
        inner_.deallocate(block, size, align);
        fail_at("allocate_zeroed", size, align, address, "byte " + std::to_string(i) + " is not zero");
      }
    return block;
  }

// GCC 12 reports the address taken before the rejected block is handed back as a use
// after free (seen inlined into a test whose allocator frees in grow): a false positive.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free"
  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const {
    const auto* old_bytes = static_cast<const unsigned char*>(block);
    const std::size_t kept = old_size < new_size ? old_size : new_size;
    std::vector<unsigned char> before(old_bytes, old_bytes + kept);
    void* grown = inner_.grow(block, old_size, new_size, align);
    const auto address = reinterpret_cast<std::uintptr_t>(grown);
    check_block("grow", grown, new_size, align);
    if (std::memcmp(grown, before.data(), kept) != 0) {
      inner_.deallocate(grown, new_size, align);
      fail_at("grow", new_size, align, address,
              "contents lost: the first " + std::to_string(kept) + " bytes differ after growing from " +
                  std::to_string(old_size));
    }
    return grown;
  }
#pragma GCC diagnostic pop

  void deallocate(void* block, std::size_t size, std::size_t align) const { inner_.deallocate(block, size, align); }

  std::size_t usable_size(const void* block) const { return inner_.usable_size(block); }
  bool release_all() const {
    if constexpr (requires { inner_.release_all(); }) return inner_.release_all();
    return false;
  }

 private:
  // A block that breaks the contract goes back to its allocator before the throw: the
  // verification pass must not leak what it rejects.
  void check_block(const char* call, void* block, std::size_t size, std::size_t align) const {
    if (block == nullptr) fail(call, size, align, block, "returned nullptr");
    std::string problem;
    if (opaque(reinterpret_cast<std::uintptr_t>(block)) % align != 0) {
      problem = "block is not aligned to " + std::to_string(align);
    } else if (const std::size_t usable = inner_.usable_size(block); usable < size) {
      problem = "usable size " + std::to_string(usable) + " < requested size";
    }
    if (problem.empty()) return;
    const auto address = reinterpret_cast<std::uintptr_t>(block);
    inner_.deallocate(block, size, align);
    fail_at(call, size, align, address, problem);
  }

  // The block's address as a number: it may have been handed back already.
  [[noreturn]] void fail(const char* call, std::size_t size, std::size_t align, const void* block,
                         const std::string& what) const {
    fail_at(call, size, align, reinterpret_cast<std::uintptr_t>(block), what);
  }
  [[noreturn]] void fail_at(const char* call, std::size_t size, std::size_t align, std::uintptr_t block,
                            const std::string& what) const {
    char address[32];
    std::snprintf(address, sizeof address, "0x%jx", static_cast<std::uintmax_t>(block));
    throw ContractViolation(std::string(name_) + " broke its contract: " + call + "(size=" + std::to_string(size) +
                            ", align=" + std::to_string(align) + ") at " + address + ": " + what);
  }

  Inner inner_;
  const char* name_;
};

}  // namespace abench
