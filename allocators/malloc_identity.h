// Finds out which shared object defines the `malloc` this process calls.
#pragma once

#include <string>
#include <string_view>

#include "allocators/backend.h"

namespace abench::backend {

// Path of the object whose `malloc` the dynamic linker resolves first ("" if unknown).
std::string object_defining_malloc();

// Fills malloc_object/serves_malloc/problem: malloc must come from an object whose file
// name contains `expected` (e.g. "libmimalloc").
Identity identity_from_malloc_object(std::string name, std::string version,
                                     std::string_view expected);

}  // namespace abench::backend
