// abench run as a workflow: measure a matrix (or the variants named), write results.json,
// results.csv, the exports and the report, print the table; optionally store the results
// as a baseline for the gate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/flow/history_flow.h"
#include "src/plan/measure_options.h"

namespace abench {

struct RunRequest {
  MeasureOptions measure;
  // --variant SPEC, repeatable: what to measure instead of the matrix's backends x policies
  // (compare's spec syntax, src/plan/variant.h)
  std::vector<std::string> variants;
  OutputDirectory out;
  std::optional<std::string> save_baseline;  // store results.json as results/baselines/NAME/ ('' is refused)
  HistoryRecording history;
};

struct RunOutcome {
  std::size_t failed_cells = 0;
};

RunOutcome run_matrix(const RunRequest& request, const std::vector<std::string>& command_line);

}  // namespace abench
