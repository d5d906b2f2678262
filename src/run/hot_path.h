// --explain's hot path: each variant's entry functions (where its workers found them,
// harness/entry_functions.h) disassembled with objdump (binutils; the cross objdump for
// another architecture's objects), and for a compare each pair's functions diffed with
// diff -u, into explain/hot-path/ (src/explain/hot_path_files.h).
#pragma once

#include <filesystem>

#include "src/explain/hot_path_files.h"
#include "src/results/results.h"

namespace abench {

// results: a run whose workers said hello (the instrumented pass); pairs when it is a compare's.
HotPathIndex write_hot_paths(const RunResults& results, const std::filesystem::path& explain_dir);

}  // namespace abench
