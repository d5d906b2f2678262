// Finds out which shared object defines the `malloc` this process calls.
#pragma once

#include <string>
#include <string_view>

#include "allocators/backend.h"

namespace abench::backend {

// mi_version() as text: 2.x encodes major, minor, patch as 217 (2.1.7); 3.x uses two
// digits each for minor and patch, 30302 (3.3.2).
std::string mimalloc_version_text(int encoded);

// Path of the object whose `malloc` the dynamic linker resolves first ("" if unknown).
std::string object_defining_malloc();

// Fills malloc_object/serves_malloc/problem: malloc must come from an object whose file
// name contains `expected` (e.g. "libmimalloc"). A worker built against a known file
// (ABENCH_ALLOCATOR_FILE: the library CMake found, a from-source install's included)
// passes it as `built_against`: then malloc, and `native_call` (an entry point of the
// allocator's own API, nullptr for none), must come from that very file.
Identity identity_from_malloc_object(std::string name, std::string version, std::string_view expected,
                                     std::string_view built_against = "", const void* native_call = nullptr);

// The version of whichever allocator serves this process, asked through the version query
// it exports (mi_version, mallctl "version", tc_version); "unknown (...)" without one.
std::string version_of_process_allocator();

}  // namespace abench::backend
