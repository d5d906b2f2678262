// Backend `mimalloc`: linked, so mimalloc serves the whole process's malloc; its calls
// are allocators/calls/mimalloc.h.
#include <mimalloc.h>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
Identity identify() {
  return identity_from_malloc_object("mimalloc", mimalloc_version_text(mi_version()), "libmimalloc",
                                     ABENCH_ALLOCATOR_FILE, reinterpret_cast<const void*>(&mi_malloc));
}

ResidentFigure allocator_resident() {
  std::size_t elapsed, user, system, current_rss, peak_rss, current_commit, peak_commit, faults;
  mi_process_info(&elapsed, &user, &system, &current_rss, &peak_rss, &current_commit, &peak_commit, &faults);
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
