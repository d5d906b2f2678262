// Backend `tcmalloc` (gperftools, minimal build): linked, so tcmalloc serves the whole
// process's malloc; its calls are allocators/calls/tcmalloc.h.
#include <gperftools/malloc_extension_c.h>
#include <gperftools/tcmalloc.h>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
Identity identify() {
  int major = 0, minor = 0;
  const char* patch = "";
  tc_version(&major, &minor, &patch);
  return identity_from_malloc_object("tcmalloc", std::to_string(major) + "." + std::to_string(minor) + patch,
                                     "libtcmalloc", ABENCH_ALLOCATOR_FILE, reinterpret_cast<const void*>(&tc_malloc));
}

ResidentFigure allocator_resident() {
  std::size_t heap = 0;
  if (!MallocExtension_GetNumericProperty("generic.heap_size", &heap)) return {};
  return {true, heap, "tcmalloc generic.heap_size"};
}

namespace raw {
void* malloc(std::size_t size) noexcept { return tc_malloc(size); }
void* calloc(std::size_t count, std::size_t size) noexcept { return tc_calloc(count, size); }
void* realloc(void* block, std::size_t size) noexcept { return tc_realloc(block, size); }
void free(void* block) noexcept { tc_free(block); }
void* memalign(std::size_t align, std::size_t size) noexcept { return tc_memalign(align, size); }
}  // namespace raw

}  // namespace abench::backend
