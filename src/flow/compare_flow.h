// abench compare as a workflow: two variants side by side, processes alternating, a verdict
// per cell whose interval includes the variation between processes (docs/compare.md); with
// --gate, the gate over the same pairs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/flow/history_flow.h"
#include "src/flow/gate_rules.h"
#include "src/plan/measure_options.h"
#include "src/verdict/gate.h"

namespace abench {

struct CompareRequest {
  MeasureOptions measure;
  std::string baseline, candidate;  // variant specs (src/plan/variant.h)
  bool gate = false;
  bool no_confirm = false;
  GateRuleOptions gate_rules;
  double min_effect_percent = 1.0;
  double confidence = 0.95;
  double detect_percent = 3;  // VerdictSettings::detect, in percent
  OutputDirectory out;
  HistoryRecording history;
};

struct CompareOutcome {
  std::size_t failed_cells = 0;
  std::optional<GateVerdict> gate;  // with --gate
};

// Measures, writes compare.md/.csv/.json (gate.md and gate.json with --gate) and the report.
CompareOutcome run_compare(const CompareRequest& request, const std::vector<std::string>& command_line);

}  // namespace abench
