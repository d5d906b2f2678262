#include "src/flow/gate_rules.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "src/flow/stored_baseline.h"
#include "src/results/noise_file.h"
#include "src/util/errors.h"
#include "src/verdict/gate_file.h"
#include "src/verdict/pairing.h"

namespace abench {

GateRules gate_rules(const GateRuleOptions& o) {
  GateRules rules = o.gate_file.empty() ? GateRules{} : load_gate_rules(o.gate_file);
  if (o.threshold_percent) rules.threshold = rules.instruction_threshold = *o.threshold_percent / 100;
  rules.allow_unclear = o.allow_unclear;
  return rules;
}

std::map<std::string, double> gate_noise(const GateRuleOptions& o, const std::string& baseline_path) {
  if (!o.noise.empty()) return load_noise_file(resolve_stored(o.noise, "noise.json"));
  // A stored baseline carries its calibrated noise floors when calibrate saved them there.
  const auto beside = std::filesystem::path(baseline_path).parent_path() / "noise.json";
  if (!baseline_path.empty() && std::filesystem::exists(beside)) return load_noise_file(beside.string());
  return {};
}

void add_environment_warnings(GateVerdict& v, const RunResults& before, const RunResults& after) {
  const std::string& b = before.conditions.machine_fingerprint;
  const std::string& a = after.conditions.machine_fingerprint;
  if (!b.empty() && b != a)
    v.warnings.push_back(
        fmt::format("baseline ({}) and candidate ({}) were measured on different machines "
                    "(fingerprints differ): a change may be the machine's, not the code's",
                    b, a));
  v.warnings.insert(v.warnings.end(), after.conditions.warnings.begin(), after.conditions.warnings.end());
}

void refuse_other_architecture(const RunResults& baseline, const std::string& baseline_path,
                               const std::string& candidate_architecture, const std::string& candidate_source) {
  const std::string& a = baseline.conditions.architecture;
  if (a.empty() || candidate_architecture.empty() || a == candidate_architecture) return;
  throw UsageError(
      fmt::format("{}: field 'conditions.architecture' is '{}' but {} is {}: a gate compares one "
                  "architecture with itself; gate against a baseline measured on {}",
                  baseline_path, a, candidate_source, candidate_architecture, candidate_architecture));
}

namespace {

// A cell's figure where every process measured it.
std::optional<double> figure_of(const CellRecord& cell) {
  return cell.summary.status == CellStatus::ok ? cell.summary.ns_per_op : std::nullopt;
}

}  // namespace

std::string drift_note(const RunResults& stored, const RunResults& measured) {
  std::map<std::string, double> stored_figures;
  for (const CellRecord& cell : stored.cells)
    if (const auto figure = figure_of(cell)) stored_figures[cell_key(stored, cell)] = *figure;
  std::vector<double> ratios;
  for (const CellRecord& cell : measured.cells)
    if (side_of(measured, cell) == "baseline")
      if (const auto figure = figure_of(cell))
        if (auto s = stored_figures.find(cell_key(measured, cell)); s != stored_figures.end() && s->second > 0)
          ratios.push_back(*figure / s->second);
  if (ratios.empty()) return "";
  std::sort(ratios.begin(), ratios.end());
  const auto at = [&](double q) {
    return (ratios[static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1))] - 1) * 100;
  };
  return fmt::format(
      "The baseline's workers were measured again beside the candidate. Against its stored figures "
      "the re-measured baseline moved by {:+.1f}% (median over {} cells; 10th to 90th percentile "
      "{:+.1f}% to {:+.1f}%): what a gate on the stored figures would have taken for change.",
      at(0.5), ratios.size(), at(0.1), at(0.9));
}

}  // namespace abench
