// abench gate: pass or fail a candidate against a baseline (docs/ci.md), and abench
// calibrate: measure each cell's noise floor with an A/A comparison.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>

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
#include "src/stored_baseline.h"
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
  cmd->add_flag("--stored-figures", o.stored_figures,
                "Judge a fresh candidate against the stored figures, even where the baseline's workers are "
                "stored (by default they are measured again beside the candidate)");
  add_gate_rule_options(*cmd, o.gate);
  o.measure.matrix.clear();  // default: the baseline's own matrix and protocol
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Directory for gate.md and gate.json (default: results/<time>-gate)");
  return cmd;
}

namespace {

// The median over cells of how far the re-measured baseline is from its stored figures:
// the machine's drift since the baseline was stored, which measuring both sides now cancels.
std::string drift_note(const StoredResults& stored, const StoredResults& measured) {
  std::map<std::string, double> stored_medians;
  for (const StoredCell& cell : stored.cells)
    if (cell.status == "ok" && !cell.samples.empty()) stored_medians[cell.key] = median_of_medians(cell.samples);
  std::vector<double> ratios;
  for (const StoredCell& cell : measured.cells)
    if (cell.side == "baseline" && cell.status == "ok" && !cell.samples.empty())
      if (auto s = stored_medians.find(cell.key); s != stored_medians.end() && s->second > 0)
        ratios.push_back(median_of_medians(cell.samples) / s->second);
  if (ratios.empty()) return "";
  std::sort(ratios.begin(), ratios.end());
  const auto at = [&](double q) { return (ratios[static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1))] - 1) * 100; };
  return fmt::format("The baseline's workers were measured again beside the candidate. Against its stored figures "
                     "the re-measured baseline moved by {:+.1f}% (median over {} cells; 10th to 90th percentile "
                     "{:+.1f}% to {:+.1f}%): drift of the machine since it was stored, cancelled here.",
                     at(0.5), ratios.size(), at(0.1), at(0.9));
}

// A side-by-side gate judges each cell by an interval over processes; two a side (the quick
// protocol) make no interval worth the name: an A/A of the quick matrix with two failed
// 9 of 144 cells, with five none. Given --processes wins.
constexpr int kSideBySideMinProcesses = 5;

void use_side_by_side_protocol(Matrix& matrix, const MeasureOptions& measure) {
  matrix.protocol.counts = false;  // counts are not gated, and stored workers come without counters
  if (!measure.processes) matrix.protocol.processes = std::max(matrix.protocol.processes, kSideBySideMinProcesses);
}

// The compare plan of the stored workers (baseline side) against the built ones.
Plan side_by_side_plan(const std::filesystem::path& workers, const Matrix& matrix) {
  const std::vector<Variant> baselines = stored_worker_variants(workers, matrix);
  std::vector<Variant> candidates = baselines;
  for (Variant& v : candidates) {
    v.exe.clear();
    v.name.clear();
  }
  Plan plan = make_compare_plan(matrix, baselines, candidates, matrix.protocol.seed);
  ProcessLauncher launcher;
  preflight_variants(plan.variants, false, launcher);
  return plan;
}

}  // namespace

int gate_command(const GateCommandOptions& o, const std::vector<std::string>& command_line) {
  const std::string baseline_path = resolve_stored(o.baseline, "results.json");
  const StoredResults before = load_results_file(baseline_path);
  const GateRules rules = rules_of(o.gate);
  auto noise = noise_of(o.gate);
  // A stored baseline carries its calibrated noise floors when calibrate saved them there.
  if (o.gate.noise.empty()) {
    const auto beside = std::filesystem::path(baseline_path).parent_path() / "noise.json";
    if (std::filesystem::exists(beside)) noise = load_noise_file(beside.string());
  }
  if (!o.candidate.empty()) {
    const StoredResults after = load_results_file(resolve_stored(o.candidate, "results.json"));
    GateVerdict verdict = evaluate_gate(pair_results(before, after), rules, noise, CompareSettings{});
    add_environment_warnings(verdict, before, after);
    return report_gate(std::move(verdict), prepare_output_dir(o.out, "gate"));
  }

  MeasureOptions measure = o.measure;
  Matrix matrix;
  if (measure.matrix.empty()) {
    matrix = matrix_of_results(before.json, measure, built_backends());
  } else {
    if (!measure.seed && before.seed) measure.seed = before.seed;  // same cell orders (see matrix_of_results)
    matrix = load_measure_matrix(measure, built_backends());
  }
  // Instruction counts repeat exactly, so stored ones are as good as fresh; timings drift.
  const auto workers = stored_workers_dir(baseline_path);
  const bool side_by_side = !o.stored_figures && !workers.empty() && matrix.protocol.measure != Measure::instructions;
  if (side_by_side) {
    use_side_by_side_protocol(matrix, measure);
    Plan plan = side_by_side_plan(workers, matrix);
    const auto dir = prepare_output_dir(o.out, "gate-" + matrix.name);
    const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
    const StoredResults measured = results_from_json(results_to_json(results), (dir / "results.json").string());
    GateVerdict verdict = evaluate_gate(pair_results(measured, measured), rules, noise, CompareSettings{});
    add_environment_warnings(verdict, measured, measured);
    if (std::string note = drift_note(before, measured); !note.empty()) verdict.notes.push_back(note);
    return report_gate(std::move(verdict), dir);
  }
  Plan plan = make_plan(matrix, matrix.protocol.seed);
  const auto dir = prepare_output_dir(o.out, "gate-" + matrix.name);
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
  const StoredResults after = results_from_json(results_to_json(results), (dir / "results.json").string());
  GateVerdict verdict = evaluate_gate(pair_results(before, after), rules, noise, CompareSettings{});
  add_environment_warnings(verdict, before, after);
  verdict.notes.push_back(workers.empty() || matrix.protocol.measure == Measure::instructions
                              ? "The candidate was gated against the baseline's stored figures."
                              : "The candidate was gated against the baseline's stored figures (--stored-figures): "
                                "on a shared machine they drift between runs; see docs/ci.md.");
  return report_gate(std::move(verdict), dir);
}

CLI::App* register_calibrate_command(CLI::App& app, CalibrateOptions& o) {
  CLI::App* cmd = app.add_subcommand("calibrate", "Measure each cell's noise floor: unchanged runs, one after another (A/A)");
  cmd->add_option("--variant", o.variant, "The variant, as for compare (default: the matrix's backends and policies)");
  cmd->add_option("--save-noise", o.save_noise, "Store the floors as results/baselines/NAME/noise.json")->required();
  cmd->add_option("--runs", o.runs, "Unchanged runs to measure (at least 2)")->check(CLI::Range(2, 50))->capture_default_str();
  o.measure.matrix.clear();  // default: the stored baseline's matrix and protocol
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Output directory (default: results/<time>-calibrate-<matrix>)");
  return cmd;
}

std::string read_binary_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(path + ": cannot read");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// calibrate measures an unchanged build: the built workers must be the stored ones.
void require_unchanged_build(const std::filesystem::path& workers, const Matrix& matrix) {
  for (const std::string& backend : matrix.backends) {
    const std::string built = worker_path(backend, WorkerMode::time);
    const auto stored = workers / ("abench-worker-" + backend);
    if (read_binary_file(built) != read_binary_file(stored.string()))
      throw UsageError(fmt::format("calibrate measures an unchanged build beside its stored baseline, but {} differs "
                                   "from {}: store the baseline again from this build first (run --save-baseline)",
                                   built, stored.string()));
  }
}

// The noise that matters is how far an unchanged build moves in the comparison the gate
// will make. Where the stored baseline has its workers, the gate measures them again beside
// the candidate, so calibrate runs that comparison with the build they were stored from
// as the candidate (A/A: the same code, at another path, as the gate will see it), `runs` times, and keeps per cell the largest change between the two sides. Else
// the gate compares with figures stored earlier, so calibrate makes `runs` runs one after
// another with the same seed and keeps the largest change of the median between any two
// runs, the stored figures counted as a run.
int calibrate_command(const CalibrateOptions& o, const std::vector<std::string>& command_line) {
  const auto built = built_backends();
  const auto store = baseline_store(o.save_noise);
  const bool stored = std::filesystem::exists(store / "results.json");
  // Like the gate: without --matrix, the stored baseline's own matrix, protocol and seed.
  Matrix matrix;
  const StoredResults baseline = stored ? load_results_file((store / "results.json").string()) : StoredResults{};
  if (o.measure.matrix.empty() && stored) {
    matrix = matrix_of_results(baseline.json, o.measure, built);
  } else {
    MeasureOptions measure = o.measure;
    if (measure.matrix.empty()) measure.matrix = "default";
    if (!measure.seed && baseline.seed) measure.seed = baseline.seed;  // the gate's cell orders
    matrix = load_measure_matrix(measure, built);
  }
  const auto workers = stored ? stored_workers_dir(store / "results.json") : std::filesystem::path();
  const bool side_by_side = o.variant.empty() && !workers.empty() && matrix.protocol.measure != Measure::instructions;
  std::vector<Variant> variants;
  if (!o.variant.empty()) variants = expand_variant_spec(parse_variant_spec(o.variant, "--variant", built), matrix);
  if (side_by_side) use_side_by_side_protocol(matrix, o.measure);
  if (side_by_side) require_unchanged_build(workers, matrix);
  const Plan plan = side_by_side       ? side_by_side_plan(workers, matrix)
                    : o.variant.empty() ? make_plan(matrix, matrix.protocol.seed)
                                        : make_variant_plan(matrix, variants, matrix.protocol.seed);
  if (!side_by_side) {
    ProcessLauncher launcher;
    preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  }
  const auto dir = prepare_output_dir(o.out, "calibrate-" + matrix.name);

  std::map<std::string, std::vector<double>> medians;  // sequential: per cell key, one per run
  std::map<std::string, double> largest_change;         // side by side: per cell key
  if (!side_by_side && stored)
    for (const StoredCell& cell : baseline.cells)
      if (!cell.samples.empty()) medians[cell.key].push_back(median_of_medians(cell.samples));
  std::size_t failed = 0;
  nlohmann::json conditions;
  for (int run = 0; run < o.runs; ++run) {
    const auto run_dir = dir / fmt::format("run{}", run + 1);
    std::filesystem::create_directories(run_dir);
    const RunResults results = execute_plan(plan, matrix, run_dir, command_line);
    failed += totals_of(results).failed;
    const StoredResults measured = results_from_json(results_to_json(results), (run_dir / "results.json").string());
    conditions = measured.conditions;
    if (side_by_side) {
      for (const GatePair& pair : pair_results(measured, measured))
        if (pair.problem.empty() && !pair.before.empty() && !pair.after.empty()) {
          // The gate's own estimate (paired by round); one resample, as only the ratio is used.
          const double change = std::fabs(
              interval_of_change(pair.before, pair.before_rounds, pair.after, pair.after_rounds, 0.95, 1, 0).ratio - 1);
          largest_change[pair.key] = std::max(largest_change[pair.key], change);
        }
    } else {
      for (const StoredCell& cell : measured.cells)
        if (!cell.samples.empty()) medians[cell.key].push_back(median_of_medians(cell.samples));
    }
  }
  for (const auto& [key, values] : medians) {
    double floor = 0;  // the largest change between any two of the runs
    for (std::size_t i = 0; i < values.size(); ++i)
      for (std::size_t j = 0; j < values.size(); ++j)
        if (i != j) floor = std::max(floor, std::fabs(values[i] / values[j] - 1));
    largest_change[key] = floor;
  }
  nlohmann::json cells = nlohmann::json::object();
  std::vector<double> floors;
  for (const auto& [key, floor] : largest_change) {
    cells[key] = floor;
    floors.push_back(floor);
  }
  const nlohmann::json noise{
      {"schema", "abench.noise"},
      {"schema_version", 1},
      {"method", side_by_side ? "largest |change| between the two sides of interleaved A/A runs of the stored "
                                "baseline's workers (what the gate measures)"
                              : "largest |change| of the median between any two unchanged runs (the stored "
                                "baseline of that name included)"},
      {"runs", o.runs},
      {"processes", matrix.protocol.processes},
      {"conditions", conditions},
      {"cells", cells}};
  std::filesystem::create_directories(store);
  write_file_atomically(store / "noise.json", noise.dump(2) + "\n");
  write_file_atomically(dir / "noise.json", noise.dump(2) + "\n");
  std::sort(floors.begin(), floors.end());
  if (!floors.empty())
    fmt::print("noise floors of {} cells over {} {}: median {:.2f}%, 90th percentile {:.2f}%, largest {:.2f}%\n",
               floors.size(), o.runs, side_by_side ? "interleaved A/A runs of the stored workers" : "runs",
               floors[floors.size() / 2] * 100, floors[floors.size() * 9 / 10] * 100, floors.back() * 100);
  fmt::print("stored: {}\n", (store / "noise.json").string());
  return failed ? kExitMeasurementFailed : kExitOk;
}

}  // namespace abench
