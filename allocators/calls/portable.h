// The portable entry points, for any allocator that serves malloc: malloc, calloc, realloc,
// free, and posix_memalign above the alignment plain malloc guarantees for every size.
// No aligned calloc or realloc exists, so those are posix_memalign + memset and
// allocate + copy + free, as a C program has to write them.
//
// Inline on purpose: the timed loop calls these directly, as a program would, with no
// adapter function between (docs/measurement.md, "what the harness adds").
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>

namespace abench::backend::calls {

template <std::size_t NaturalAlign>
struct Portable {
  static constexpr const char* kName = "portable";
  static constexpr const char* kCalls =
      "malloc, calloc(1, n), realloc, free; above natural alignment posix_memalign (+ memset for zeroed, "
      "+ memcpy and free for grow)";
  // The allocator's functions among them, by symbol (the hot path --explain disassembles).
  static constexpr const char* kFunctions = "malloc calloc realloc free posix_memalign";

  static void* allocate(std::size_t size, std::size_t align) noexcept {
    if (align <= NaturalAlign) return std::malloc(size);
    void* block = nullptr;
    return posix_memalign(&block, align, size) == 0 ? block : nullptr;
  }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
    if (align <= NaturalAlign) return std::calloc(1, size);
    void* block = allocate(size, align);
    if (block != nullptr) std::memset(block, 0, size);
    return block;
  }
  static void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) noexcept {
    if (align <= NaturalAlign) return std::realloc(block, new_size);
    void* moved = allocate(new_size, align);
    if (moved == nullptr) return nullptr;
    std::memcpy(moved, block, old_size < new_size ? old_size : new_size);
    std::free(block);
    return moved;
  }
  static void deallocate(void* block, std::size_t, std::size_t) noexcept { std::free(block); }
  static std::size_t usable_size(const void* block) noexcept { return malloc_usable_size(const_cast<void*>(block)); }
};

}  // namespace abench::backend::calls
