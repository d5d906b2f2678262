// run --explain's figures beside the times: per cell, time, instructions, branch misses and
// memory accesses per operation (the four columns allocator reports quote), as a terminal
// table, and every figure in explain.csv.
#pragma once

#include <string>

#include "src/results/results.h"

namespace abench {

// timed and instrumented: the same plan's cells (run_explain_pass).
std::string work_table(const RunResults& timed, const RunResults& instrumented);
std::string work_csv(const RunResults& timed, const RunResults& instrumented);

}  // namespace abench
