// abench gate: pass or fail a candidate against a baseline (docs/ci.md), and abench
// calibrate: measure each cell's noise floor with an A/A comparison.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "src/atomic_file.h"
#include "src/compare.h"
#include "src/errors.h"
#include "src/gate.h"
#include "src/gate_report.h"
#include "src/measure.h"
#include "src/preflight.h"
#include "src/process_launcher.h"
#include "src/result_file.h"
#include "src/results_writers.h"
#include "src/worker_registry.h"

namespace abench {
namespace {

}  // namespace

void add_gate_rule_options(CLI::App& cmd, GateOptions& o) {
  cmd.add_option("--gate-file", o.gate_file, "JSON thresholds: global, per workload, per cell pattern");
  cmd.add_option("--threshold", o.threshold_percent, "Global threshold in percent (default 5; instructions 0.5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd.add_option("--noise", o.noise, "Noise floors from abench calibrate: a stored NAME or a noise.json path");
}

namespace {

GateRules rules_of(const GateOptions& o) {
  GateRules rules = o.gate_file.empty() ? GateRules{} : load_gate_rules(o.gate_file);
  if (o.threshold_percent) rules.threshold = rules.instruction_threshold = *o.threshold_percent / 100;
  return rules;
}

std::map<std::string, double> noise_of(const GateOptions& o) {
  return o.noise.empty() ? std::map<std::string, double>{} : load_noise_file(resolve_stored(o.noise, "noise.json"));
}

// Different machines measure different numbers: say so, as the verdict cannot tell.
void add_environment_warnings(GateVerdict& v, const StoredResults& before, const StoredResults& after) {
  if (!before.machine_fingerprint.empty() && before.machine_fingerprint != after.machine_fingerprint)
    v.warnings.push_back(fmt::format("baseline ({}) and candidate ({}) were measured on different machines "
                                     "(fingerprints differ): a change may be the machine's, not the code's",
                                     before.machine_fingerprint, after.machine_fingerprint));
  for (const auto& w : after.conditions.value("warnings", std::vector<std::string>{})) v.warnings.push_back(w);
}

}  // namespace

int report_gate(GateVerdict verdict, const std::filesystem::path& dir) {
  const std::string markdown = gate_markdown(verdict);
  write_file_atomically(dir / "gate.md", markdown);
  write_file_atomically(dir / "gate.json", gate_json(verdict).dump(2) + "\n");
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    std::ofstream out(summary, std::ios::app);
    out << markdown << "\n";
  }
  fmt::print("{}\n", markdown);
  fmt::print("gate: {}/gate.md, {}/gate.json\n", dir.string(), dir.string());
  return verdict.exit_code();
}

GateVerdict gate_compare(const RunResults& results, const GateOptions& o) {
  const StoredResults stored = results_from_json(results_to_json(results), "compare");
  GateVerdict verdict = evaluate_gate(pair_results(stored, stored), rules_of(o), noise_of(o), CompareSettings{});
  add_environment_warnings(verdict, stored, stored);
  return verdict;
}

CLI::App* register_gate_command(CLI::App& app, GateCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand("gate", "Pass or fail a candidate against a baseline (exit 0 pass, 1 regression, "
                                              "2 usage, 3 measurement failed)");
  cmd->add_option("--baseline", o.baseline, "results.json (or its directory) or a baseline stored by run --save-baseline")
      ->required();
  cmd->add_option("--candidate", o.candidate, "results.json to judge; without it, the candidate is measured now");
  add_gate_rule_options(*cmd, o.gate);
  o.measure.matrix.clear();  // default: the baseline's own matrix and protocol
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Directory for gate.md and gate.json (default: results/<time>-gate)");
  return cmd;
}

int gate_command(const GateCommandOptions& o, const std::vector<std::string>& command_line) {
  const StoredResults before = load_results_file(resolve_stored(o.baseline, "results.json"));
  const GateRules rules = rules_of(o.gate);
  auto noise = noise_of(o.gate);
  // A stored baseline carries its calibrated noise floors when calibrate saved them there.
  if (o.gate.noise.empty()) {
    const auto beside = std::filesystem::path(resolve_stored(o.baseline, "results.json")).parent_path() / "noise.json";
    if (std::filesystem::exists(beside)) noise = load_noise_file(beside.string());
  }
  StoredResults after;
  std::filesystem::path dir;
  if (!o.candidate.empty()) {
    after = load_results_file(resolve_stored(o.candidate, "results.json"));
    pair_results(before, after);  // incompatible files are a usage error before any output
    dir = prepare_output_dir(o.out, "gate");
  } else {
    MeasureOptions measure = o.measure;
    Matrix matrix;
    if (measure.matrix.empty()) {
      matrix = matrix_of_results(before.json, measure, built_backends());
    } else {
      if (!measure.seed && before.seed) measure.seed = before.seed;  // same cell orders (see matrix_of_results)
      matrix = load_measure_matrix(measure, built_backends());
    }
    Plan plan = make_plan(matrix, matrix.protocol.seed);
    dir = prepare_output_dir(o.out, "gate-" + matrix.name);
    const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
    after = results_from_json(results_to_json(results), (dir / "results.json").string());
  }
  GateVerdict verdict = evaluate_gate(pair_results(before, after), rules, noise, CompareSettings{});
  add_environment_warnings(verdict, before, after);
  return report_gate(std::move(verdict), dir);
}

CLI::App* register_calibrate_command(CLI::App& app, CalibrateOptions& o) {
  CLI::App* cmd = app.add_subcommand("calibrate", "Measure each cell's noise floor: unchanged runs, one after another (A/A)");
  cmd->add_option("--variant", o.variant, "The variant, as for compare (default: the matrix's backends and policies)");
  cmd->add_option("--save-noise", o.save_noise, "Store the floors as results/baselines/NAME/noise.json")->required();
  cmd->add_option("--runs", o.runs, "Unchanged runs to measure (at least 2)")->check(CLI::Range(2, 50))->capture_default_str();
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Output directory (default: results/<time>-calibrate-<matrix>)");
  return cmd;
}

// The gate compares a baseline with a run made later, so the noise that matters is how
// far an unchanged build moves from one run to the next, not only between the processes
// of one run. calibrate makes `runs` runs one after another with the same seed (as the
// gate does) and takes, per cell, the largest change of the median between any two runs,
// the stored baseline of the same name counted as a run.
int calibrate_command(const CalibrateOptions& o, const std::vector<std::string>& command_line) {
  const auto built = built_backends();
  const Matrix matrix = load_measure_matrix(o.measure, built);
  std::vector<Variant> variants;
  if (!o.variant.empty()) variants = expand_variant_spec(parse_variant_spec(o.variant, "--variant", built), matrix);
  const Plan plan = o.variant.empty() ? make_plan(matrix, matrix.protocol.seed)
                                      : make_variant_plan(matrix, variants, matrix.protocol.seed);
  ProcessLauncher launcher;
  preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  const auto dir = prepare_output_dir(o.out, "calibrate-" + matrix.name);

  std::vector<StoredResults> runs;
  std::size_t failed = 0;
  for (int run = 0; run < o.runs; ++run) {
    const auto run_dir = dir / fmt::format("run{}", run + 1);
    std::filesystem::create_directories(run_dir);
    const RunResults results = execute_plan(plan, matrix, run_dir, command_line);
    failed += totals_of(results).failed;
    runs.push_back(results_from_json(results_to_json(results), (run_dir / "results.json").string()));
  }
  // A baseline already stored under this name is one more unchanged run, and the one the
  // gate will compare with: how far a run moves from it is what matters most.
  const auto store = std::filesystem::path(source_directory()) / "results" / "baselines" / o.save_noise;
  std::map<std::string, std::vector<double>> medians;  // per cell key, one per run
  if (std::filesystem::exists(store / "results.json"))
    for (const StoredCell& cell : load_results_file((store / "results.json").string()).cells)
      if (!cell.samples.empty()) medians[cell.key].push_back(median_of_medians(cell.samples));
  for (const StoredResults& run : runs)
    for (const StoredCell& cell : run.cells)
      if (!cell.samples.empty()) medians[cell.key].push_back(median_of_medians(cell.samples));
  nlohmann::json cells = nlohmann::json::object();
  std::vector<double> floors;
  for (const auto& [key, values] : medians) {
    double floor = 0;  // the largest change between any two of the runs
    for (std::size_t i = 0; i < values.size(); ++i)
      for (std::size_t j = 0; j < values.size(); ++j)
        if (i != j) floor = std::max(floor, std::fabs(values[i] / values[j] - 1));
    cells[key] = floor;
    floors.push_back(floor);
  }
  const nlohmann::json noise{{"schema", "abench.noise"},
                             {"schema_version", 1},
                             {"method", "largest |change| of the median between any two unchanged runs (the stored "
                                        "baseline of that name included)"},
                             {"runs", o.runs},
                             {"processes", matrix.protocol.processes},
                             {"conditions", runs.front().conditions},
                             {"cells", cells}};
  std::filesystem::create_directories(store);
  write_file_atomically(store / "noise.json", noise.dump(2) + "\n");
  write_file_atomically(dir / "noise.json", noise.dump(2) + "\n");
  std::sort(floors.begin(), floors.end());
  if (!floors.empty())
    fmt::print("noise floors of {} cells over {} runs: median {:.2f}%, 90th percentile {:.2f}%, largest {:.2f}%\n",
               floors.size(), o.runs, floors[floors.size() / 2] * 100, floors[floors.size() * 9 / 10] * 100,
               floors.back() * 100);
  fmt::print("stored: {}\n", (store / "noise.json").string());
  return failed ? kExitMeasurementFailed : kExitOk;
}

}  // namespace abench
