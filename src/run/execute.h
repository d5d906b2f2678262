// Executing a plan: the run's conditions, the CPUs, the workers' hooks, results on disk
// between workers, resumption and adaptive rounds; what every measuring command calls.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/plan/matrix.h"
#include "src/plan/plan.h"
#include "src/results/results.h"

namespace abench {

// Runs the plan's workers, writing results.json and results.csv into dir as cells finish.
// resume: dir holds an interrupted run of the same plan; only what it had not finished runs.
// An interrupted run returns with results.interrupted_by set (see throw_if_interrupted).
RunResults execute_plan(Plan plan, const Matrix& matrix, const std::filesystem::path& dir,
                        const std::vector<std::string>& command_line, bool resume = false);

// After an interrupted run, what it kept and how to go on, as an Interrupted exception.
// resume_command: "run" or "compare"; nullptr for commands that cannot resume.
void throw_if_interrupted(const RunResults& results, const std::filesystem::path& dir, const char* resume_command);

// valgrind's path (callgrind: --measure instructions, --explain); EnvironmentError when absent.
std::string valgrind_path();

struct RunTotals {
  std::size_t cells = 0, failed = 0, unstable = 0, refused = 0;
  double counting_s = 0;
};
RunTotals totals_of(const RunResults& results);

}  // namespace abench
