// Backend `linked`: any allocator that replaces malloc, linked into the worker by file
// (scripts/build-worker linked LIBRARY): an allocator under development, with no API of
// its own that abench knows, reached through the portable calls (allocators/calls/linked.h).
#include <cstdlib>

#include "allocators/backend.h"
#include "allocators/malloc_identity.h"

namespace abench::backend {

Identity identify() {
  const std::string file = ABENCH_ALLOCATOR_FILE;
  const std::string stem = file.substr(file.find_last_of('/') + 1);
  return identity_from_malloc_object("linked", version_of_process_allocator() + " (" + file + ")",
                                     stem.substr(0, stem.find('.')), file);
}

ResidentFigure allocator_resident() { return {}; }  // no figure abench knows how to ask for

}  // namespace abench::backend
