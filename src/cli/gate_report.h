// Writing a gate verdict (gate.md, gate.json, $GITHUB_STEP_SUMMARY) and gating a compare.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "src/cli/commands.h"
#include "src/verdict/gate.h"
#include "src/results/results.h"

namespace abench {

// Writes the files, prints the table and the summary lines; returns the exit code.
int report_gate(GateVerdict verdict, const std::filesystem::path& dir, bool draw_report);

void add_gate_rule_options(CLI::App& command, GateOptions& options);

// The rules the options name (--gate-file, then --threshold over it).
GateRules gate_rules(const GateOptions& options);
// --noise's floors; without it, those stored beside the baseline's results.json (calibrate
// --save-noise), if any; none for baseline_path "".
std::map<std::string, double> gate_noise(const GateOptions& options, const std::string& baseline_path);

// The gate over a compare's pairs (compare --gate), paired by round and judged with the
// compare's settings (its confidence: compare.json and gate.json record the same); with `confirm`, the
// variants of regressed cells are measured a second time into `dir`/confirm and those
// cells judged again on both runs (docs/ci.md).
GateVerdict gate_compare(const RunResults& results, const Matrix& matrix, const std::filesystem::path& dir,
                         const GateOptions& options, const VerdictSettings& settings, bool confirm,
                         const std::vector<std::string>& command_line);

}  // namespace abench
