// abench gate as a workflow (docs/ci.md): a candidate judged against a baseline by one of its
// roads, each ending in gate.md and gate.json:
//   - stored candidate: two results files paired cell by cell;
//   - side by side: the baseline's stored workers measured again beside the built candidate
//     in one interleaved run, its regressions confirmed by a second run;
//   - stored figures: the candidate measured now, against the figures stored with the
//     baseline (instruction counts, or no stored workers, or --stored-figures).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/flow/history_flow.h"
#include "src/flow/gate_rules.h"
#include "src/plan/measure_options.h"
#include "src/results/results.h"
#include "src/verdict/compare.h"
#include "src/verdict/gate.h"

namespace abench {

struct GateRequest {
  MeasureOptions measure;           // measure.matrix "" : the baseline's own matrix and protocol
  std::string baseline;             // a stored NAME, or a results.json or its directory
  std::string candidate;            // "": measured now
  OutputDirectory out;              // "": results/<time>-gate-<matrix>
  bool stored_figures = false;      // judge a fresh candidate against the stored figures
  bool run_stored_workers = false;  // run workers beside a results.json outside results/baselines/
  bool no_confirm = false;
  double confidence = 0.95;  // VerdictSettings::confidence
  GateRuleOptions rules;
  HistoryRecording history;  // the measured run recorded, its cells judged against their history (docs/history.md)
};

// Judges, writes gate.md and gate.json into the output directory, and returns the verdict.
GateVerdict run_gate(const GateRequest& request, const std::vector<std::string>& command_line);

// The gate over a compare's pairs (compare --gate), paired by round and judged with the
// compare's settings (compare.json and gate.json record the same confidence); with `confirm`,
// the variants of regressed cells are measured a second time into `dir`/confirm and those
// cells judged again on both runs (docs/ci.md).
GateVerdict gate_compare(const RunResults& results, const Matrix& matrix, const std::filesystem::path& dir,
                         const GateRuleOptions& options, const VerdictSettings& settings, bool confirm,
                         const std::vector<std::string>& command_line);

}  // namespace abench
