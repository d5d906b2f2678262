// Backend `arena`: identity and held memory of the bump arena in allocators/calls/arena.h.
#include <gnu/libc-version.h>

#include "allocators/backend.h"
#include "allocators/calls/arena.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {

Identity identify() {
  return identity_from_malloc_object("arena", std::string("bump arena over glibc ") + gnu_get_libc_version(),
                                     "libc.so");
}

ResidentFigure allocator_resident() {
  return {true, calls::Arena::state.chunks.size() * calls::Arena::kChunkBytes, "arena chunks held (1 MiB each)"};
}

}  // namespace abench::backend
