// Where the allocator functions a worker's cells call live: for each symbol of its entry-point
// set (allocators/calls/*.h, kFunctions), the object that serves it in this process (the
// preloaded library, libmimalloc, libc) and its place and size in that file, so that the
// orchestrator can disassemble exactly the code that ran (--explain's hot path).
#pragma once

#include <string>
#include <vector>

#include "harness/protocol.h"

namespace abench {

// names: space-separated symbols; one that this process does not define is left out.
std::vector<EntryFunction> resolve_entry_functions(const char* names);

}  // namespace abench
