// abench calibrate as a workflow: each cell's noise floor, how far an unchanged build moves
// in the comparison the gate will make (docs/ci.md), stored beside the baseline.
#pragma once

#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/plan/measure_options.h"

namespace abench {

struct CalibrateRequest {
  MeasureOptions measure;  // measure.matrix "": the stored baseline's matrix and protocol
  std::string variant;     // "": the matrix's backends and policies
  std::string save_noise;  // the baseline NAME whose noise.json is written
  OutputDirectory out;
  int runs = 3;
};

struct CalibrateOutcome {
  std::size_t failed_cells = 0;  // over every run
};

CalibrateOutcome run_calibrate(const CalibrateRequest& request, const std::vector<std::string>& command_line);

}  // namespace abench
