// The worker's entry point: reads a WorkerRequest on stdin, runs its cells, answers on
// stdout (harness/protocol.h). `--self-check` only reports who serves malloc.
#pragma once

#include <cstdint>
#include <vector>

#include "harness/protocol.h"

namespace abench {

int worker_main(int argc, char** argv);

// The order a worker runs its cells in: the request's order, or a Fisher-Yates shuffle
// driven by mt19937_64(seed) (both fully specified by the standard, unlike std::shuffle,
// so a recorded seed reproduces the order on any standard library).
std::vector<int> cell_order(const WorkerRequest& request);

}  // namespace abench
