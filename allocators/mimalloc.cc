// Backend `mimalloc`: linked, so mimalloc serves the whole process's malloc.
#include <mimalloc.h>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
namespace {
// The alignment plain malloc guarantees for every size: mimalloc aligns small blocks only to their size class (8, 24, ... bytes are 8-aligned).
constexpr std::size_t kNaturalAlign = 8;
}  // namespace

Identity identify() {
  return identity_from_malloc_object("mimalloc", mimalloc_version_text(mi_version()), "libmimalloc");
}

void* allocate(std::size_t size, std::size_t align) noexcept {
  return align <= kNaturalAlign ? mi_malloc(size) : mi_malloc_aligned(size, align);
}

void* allocate_zeroed(std::size_t size, std::size_t align) noexcept {
  return align <= kNaturalAlign ? mi_zalloc(size) : mi_zalloc_aligned(size, align);
}

void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) noexcept {
  return align <= kNaturalAlign ? mi_realloc(block, new_size)
                                : mi_realloc_aligned(block, new_size, align);
}

// The sized, aligned free where the request was aligned; mi_free otherwise.
void deallocate(void* block, std::size_t size, std::size_t align) noexcept {
  if (align <= kNaturalAlign) {
    mi_free(block);
  } else {
    mi_free_size_aligned(block, size, align);
  }
}

std::size_t usable_size(const void* block) noexcept { return mi_usable_size(block); }

bool release_all() noexcept { return false; }

ResidentFigure allocator_resident() {
  std::size_t elapsed, user, system, current_rss, peak_rss, current_commit, peak_commit, faults;
  mi_process_info(&elapsed, &user, &system, &current_rss, &peak_rss, &current_commit, &peak_commit,
                  &faults);
  return {true, current_commit, "mimalloc mi_process_info current_commit"};
}

namespace raw {
void* malloc(std::size_t size) noexcept { return mi_malloc(size); }
void* calloc(std::size_t count, std::size_t size) noexcept { return mi_calloc(count, size); }
void* realloc(void* block, std::size_t size) noexcept { return mi_realloc(block, size); }
void free(void* block) noexcept { mi_free(block); }
void* memalign(std::size_t align, std::size_t size) noexcept { return mi_malloc_aligned(size, align); }
}  // namespace raw

}  // namespace abench::backend
