// Where the worker executables are: beside the abench binary, one per backend built.
#pragma once

#include <string>
#include <vector>

#include "harness/protocol.h"
#include "src/plan/variant.h"

namespace abench {

// Directory holding abench and its workers.
std::string executable_directory();

// Backends this build has a worker executable for, in build order.
std::vector<std::string> built_backends();

// abench-worker-<backend> (timed) or abench-counter-<backend> (counting).
std::string worker_path(const std::string& backend, WorkerMode mode = WorkerMode::time);

// The same for a variant: its exe= when it names one (and, for counting, the
// abench-counter-* beside that exe).
std::string worker_path(const Variant& variant, WorkerMode mode);

}  // namespace abench
