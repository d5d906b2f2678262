// Backend `system`: glibc malloc; its calls are allocators/calls/system.h.
#include <gnu/libc-version.h>
#include <malloc.h>

#include <cstdlib>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {
Identity identify() {
  return identity_from_malloc_object("system", std::string("glibc ") + gnu_get_libc_version(), "libc.so");
}

ResidentFigure allocator_resident() {
  // With an allocator preloaded, glibc's statistics describe an allocator nobody uses.
  if (const char* preload = std::getenv("ABENCH_EXPECT_MALLOC_FROM"); preload && *preload) return {};
  const struct mallinfo2 info = mallinfo2();
  return {true, info.arena + info.hblkhd, "glibc mallinfo2 arena + hblkhd"};
}

}  // namespace abench::backend
