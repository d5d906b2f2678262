// --explain's instrumented pass: after the timed rounds, every cell of every variant once more
// in processes of their own under callgrind with its cache and branch simulators, so that a
// time figure has the work behind it beside it (src/explain/work_figures.h). Two processes a
// variant, each running the cells in its own order, say how far the counts repeat.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/explain/work_figures.h"
#include "src/plan/matrix.h"
#include "src/plan/plan.h"
#include "src/results/results.h"

namespace abench {

// UsageError under emulation, EnvironmentError without valgrind: --explain cannot run here.
void check_explain_possible_here();

// The protocol of the instrumented pass, from the timed run's.
RunProtocol explain_protocol(const RunProtocol& timed);

// Runs `timed`'s variants and cells in instrumented processes, writing results.json and
// results.csv into dir/explain (resuming what an interrupted pass left there), and returns
// them; a cell the instructions mode refuses (mmap-sized, cross-thread, --touch) says why.
RunResults run_explain_pass(const Plan& timed, const Matrix& matrix, const std::filesystem::path& dir,
                            const std::vector<std::string>& command_line);

}  // namespace abench
