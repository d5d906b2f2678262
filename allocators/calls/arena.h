// Entry points of backend `arena`: a bump arena over glibc malloc, as arena authors publish
// it against general-purpose allocators. allocate moves a pointer inside 1 MiB chunks taken
// from malloc; deallocate frees nothing; release_all() gives everything back at once (the
// chunks are kept for reuse). Each block carries its size in the 16 bytes before it, so
// usable_size can answer. Only the workingset workload runs on it (a bump arena frees
// nothing until reset, so the other workloads would grow without bound). Inline, as the
// allocators' calls are, so the arena pays no call the allocators do not.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "allocators/entry_sets.h"

namespace abench::backend {
namespace calls {

struct ArenaState {
  std::vector<unsigned char*> chunks;  // all chunks ever taken, reused after a reset
  std::size_t current = 0;             // chunk being bumped
  std::uintptr_t next = 0, end = 0;
  std::vector<unsigned char*> large;  // blocks bigger than a chunk, freed on reset
};

struct Arena {
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
  static constexpr std::size_t kHeader = 16;  // the block's size, keeping 16-byte alignment
  static constexpr const char* kName = "native";
  static constexpr const char* kCalls =
      "bump allocation in 1 MiB chunks from malloc; free is a no-op; reset releases all";
  static constexpr const char* kFunctions = "";  // inline in the worker: no symbol of its own

  static inline ArenaState state;

  static bool take_chunk() noexcept {
    if (state.current + 1 < state.chunks.size()) {
      ++state.current;
    } else {
      auto* chunk = static_cast<unsigned char*>(std::malloc(kChunkBytes));
      if (chunk == nullptr) return false;
      try {
        state.chunks.push_back(chunk);
      } catch (...) {
        std::free(chunk);
        return false;
      }
      state.current = state.chunks.size() - 1;
    }
    state.next = reinterpret_cast<std::uintptr_t>(state.chunks[state.current]);
    state.end = state.next + kChunkBytes;
    return true;
  }

  static void* allocate_large(std::size_t size, std::size_t align) noexcept {
    void* block = nullptr;
    if (posix_memalign(&block, align, size + align) != 0) return nullptr;
    auto* data = static_cast<unsigned char*>(block) + align;
    std::memcpy(data - kHeader, &size, sizeof size);
    try {
      state.large.push_back(static_cast<unsigned char*>(block));
    } catch (...) {
      std::free(block);
      return nullptr;
    }
    return data;
  }

  static void* allocate(std::size_t size, std::size_t align) noexcept {
    if (align < kHeader) align = kHeader;
    if (size + align + kHeader > kChunkBytes) return allocate_large(size, align);  // its own block
    for (;;) {
      const std::uintptr_t data = (state.next + kHeader + align - 1) & ~(align - 1);
      if (state.end != 0 && data + size <= state.end) {
        std::memcpy(reinterpret_cast<void*>(data - kHeader), &size, sizeof size);
        state.next = data + size;
        return reinterpret_cast<void*>(data);
      }
      if (!take_chunk()) return nullptr;
    }
  }
  static void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
    void* block = allocate(size, align);
    if (block != nullptr) std::memset(block, 0, size);  // a reused chunk holds old bytes
    return block;
  }
  static void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) noexcept {
    void* moved = allocate(new_size, align);
    if (moved != nullptr) std::memcpy(moved, block, old_size < new_size ? old_size : new_size);
    return moved;  // the old block stays until the reset
  }
  static void deallocate(void*, std::size_t, std::size_t) noexcept {}
  static std::size_t usable_size(const void* block) noexcept {
    std::size_t size = 0;
    std::memcpy(&size, static_cast<const unsigned char*>(block) - kHeader, sizeof size);
    return size;
  }
  static bool release_all() noexcept {
    for (unsigned char* block : state.large) std::free(block);
    state.large.clear();
    state.current = 0;
    state.next = state.chunks.empty() ? 0 : reinterpret_cast<std::uintptr_t>(state.chunks[0]);
    state.end = state.chunks.empty() ? 0 : state.next + kChunkBytes;
    return true;
  }
};

}  // namespace calls

using DefaultCalls = calls::Arena;

template <class F>
decltype(auto) with_entry_set(EntrySet, F&& f) {
  return f(calls::Arena{});
}

}  // namespace abench::backend
