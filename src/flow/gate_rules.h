// The rules a gate judges by, as the user names them (a thresholds file, a threshold, noise
// floors), and what a gate says beside its cells: different machines, another architecture,
// the drift of stored figures.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "src/results/results.h"
#include "src/verdict/gate.h"

namespace abench {

struct GateRuleOptions {
  std::string gate_file;                    // JSON thresholds (src/verdict/gate_file.h)
  std::optional<double> threshold_percent;  // over the file's global threshold
  std::string noise;                        // a stored NAME or a noise.json path
  bool allow_unclear = false;
};

// The rules the options name (--gate-file, then --threshold over it).
GateRules gate_rules(const GateRuleOptions& options);
// --noise's floors; without it, those stored beside the baseline's results.json (calibrate
// --save-noise), if any; none for baseline_path "".
std::map<std::string, double> gate_noise(const GateRuleOptions& options, const std::string& baseline_path);

// Different machines measure different numbers: the verdict says so, as it cannot tell.
void add_environment_warnings(GateVerdict& verdict, const RunResults& before, const RunResults& after);

// Figures of two architectures measure two machines' code paths (and instruction counts
// differ by construction): a gate across them is refused (UsageError), not warned about.
void refuse_other_architecture(const RunResults& baseline, const std::string& baseline_path,
                               const std::string& candidate_architecture, const std::string& candidate_source);

// How far the re-measured baseline is from its stored figures (median over cells): mostly the
// machine's drift since it was stored, which measuring both sides now cancels. "" when no
// cell has both.
std::string drift_note(const RunResults& stored, const RunResults& measured);

}  // namespace abench
