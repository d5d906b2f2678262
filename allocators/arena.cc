// Backend `arena`: a bump arena over glibc malloc, as arena authors publish it against
// general-purpose allocators. allocate moves a pointer inside 1 MiB chunks taken from
// malloc; deallocate frees nothing; release_all() gives everything back at once (the
// chunks are kept for reuse). Each block carries its size in the 16 bytes before it, so
// usable_size can answer. Only the workingset workload runs on it (a bump arena frees
// nothing until reset, so the other workloads would grow without bound).
#include <gnu/libc-version.h>
#include <malloc.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
namespace {

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr std::size_t kHeader = 16;  // the block's size, keeping 16-byte alignment

struct Arena {
  std::vector<unsigned char*> chunks;  // all chunks ever taken, reused after a reset
  std::size_t current = 0;             // chunk being bumped
  std::uintptr_t next = 0, end = 0;
  std::vector<unsigned char*> large;   // blocks bigger than a chunk, freed on reset
};
Arena g_arena;

bool take_chunk() {
  if (g_arena.current + 1 < g_arena.chunks.size()) {
    ++g_arena.current;
  } else {
    auto* chunk = static_cast<unsigned char*>(std::malloc(kChunkBytes));
    if (chunk == nullptr) return false;
    g_arena.chunks.push_back(chunk);
    g_arena.current = g_arena.chunks.size() - 1;
  }
  g_arena.next = reinterpret_cast<std::uintptr_t>(g_arena.chunks[g_arena.current]);
  g_arena.end = g_arena.next + kChunkBytes;
  return true;
}

}  // namespace

Identity identify() {
  Identity id = identity_from_malloc_object("arena", std::string("bump arena over glibc ") + gnu_get_libc_version(),
                                            "libc.so");
  return id;
}

void* allocate(std::size_t size, std::size_t align) noexcept {
  if (align < kHeader) align = kHeader;
  if (size + align + kHeader > kChunkBytes) {  // too big for a chunk: its own block
    void* block = nullptr;
    if (posix_memalign(&block, align, size + align) != 0) return nullptr;
    auto* data = static_cast<unsigned char*>(block) + align;
    std::memcpy(data - kHeader, &size, sizeof size);
    g_arena.large.push_back(static_cast<unsigned char*>(block));
    return data;
  }
  for (;;) {
    const std::uintptr_t data = (g_arena.next + kHeader + align - 1) & ~(align - 1);
    if (g_arena.end != 0 && data + size <= g_arena.end) {
      std::memcpy(reinterpret_cast<void*>(data - kHeader), &size, sizeof size);
      g_arena.next = data + size;
      return reinterpret_cast<void*>(data);
    }
    if (!take_chunk()) return nullptr;
  }
}

void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
  void* block = allocate(size, align);
  if (block != nullptr) std::memset(block, 0, size);  // a reused chunk holds old bytes
  return block;
}

void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) noexcept {
  void* moved = allocate(new_size, align);
  if (moved != nullptr) std::memcpy(moved, block, old_size < new_size ? old_size : new_size);
  return moved;  // the old block stays until the reset
}

void deallocate(void*, std::size_t, std::size_t) noexcept {}

std::size_t usable_size(const void* block) noexcept {
  std::size_t size = 0;
  std::memcpy(&size, static_cast<const unsigned char*>(block) - kHeader, sizeof size);
  return size;
}

bool release_all() noexcept {
  for (unsigned char* block : g_arena.large) std::free(block);
  g_arena.large.clear();
  g_arena.current = 0;
  g_arena.next = g_arena.chunks.empty() ? 0 : reinterpret_cast<std::uintptr_t>(g_arena.chunks[0]);
  g_arena.end = g_arena.chunks.empty() ? 0 : g_arena.next + kChunkBytes;
  return true;
}

ResidentFigure allocator_resident() {
  return {true, g_arena.chunks.size() * kChunkBytes, "arena chunks held (1 MiB each)"};
}

}  // namespace abench::backend
