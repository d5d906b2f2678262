// abench calibrate: measure each cell's noise floor, how far an unchanged build moves in the
// comparison the gate will make (docs/ci.md).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <set>

#include <fmt/format.h>

#include "src/util/atomic_file.h"
#include "src/cli/commands.h"
#include "src/util/errors.h"
#include "src/cli/measure.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/cli/stored_baseline.h"
#include "src/verdict/change_rule.h"
#include "src/run/worker_registry.h"
#include "src/run/execute.h"
#include "src/verdict/compare.h"
#include "src/verdict/noise_floors.h"
#include "src/verdict/pairing.h"

namespace abench {

CLI::App* register_calibrate_command(CLI::App& app, CalibrateOptions& o) {
  CLI::App* cmd = app.add_subcommand("calibrate", "Measure each cell's noise floor: how far an unchanged build moves in the gate's comparison (A/A)");
  cmd->add_option("--variant", o.variant, "The variant, as for compare (default: the matrix's backends and policies)");
  cmd->add_option("--save-noise", o.save_noise, "Store the floors as results/baselines/NAME/noise.json")->required();
  cmd->add_option("--runs", o.runs, "Unchanged runs to measure (at least 2)")->check(CLI::Range(2, 50))->capture_default_str();
  o.measure.matrix.clear();  // default: the stored baseline's matrix and protocol
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Output directory (default: results/<time>-calibrate-<matrix>)")->check(kNotEmpty);
  return cmd;
}

namespace {

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

}  // namespace

// The noise that matters is how far an unchanged build moves in the comparison the gate
// will make. Where the stored baseline has its workers, the gate measures them again beside
// the candidate, so calibrate runs that comparison `runs` times with the build they were
// stored from as the candidate (A/A: the same code at another path, as the gate will see
// it) and keeps per cell the largest change between the two sides. Else the gate compares
// with figures stored earlier, so calibrate makes `runs` runs one after
// another with the same seed and keeps the largest change of the median between any two
// runs, the stored figures counted as a run.
int calibrate_command(const CalibrateOptions& o, const std::vector<std::string>& command_line) {
  const auto built = built_backends();
  const auto store = baseline_store(o.save_noise, "--save-noise");
  const bool stored = std::filesystem::exists(store / "results.json");
  // Like the gate: without --matrix, the stored baseline's own matrix, protocol and seed.
  Matrix matrix;
  const RunResults baseline = stored ? load_results((store / "results.json").string()) : RunResults{};
  if (o.measure.matrix.empty() && stored) {
    matrix = matrix_of_results(baseline.matrix, o.measure, built);
  } else {
    MeasureOptions measure = o.measure;
    if (measure.matrix.empty()) measure.matrix = "default";
    if (!measure.seed && baseline.protocol.seed) measure.seed = baseline.protocol.seed;  // the gate's cell orders
    matrix = load_measure_matrix(measure, built);
  }
  const auto workers = stored ? stored_workers_dir(store / "results.json", true, nullptr) : std::filesystem::path();
  const bool side_by_side = o.variant.empty() && !workers.empty() && matrix.protocol.measure != Measure::instructions;
  std::vector<Variant> variants;
  if (!o.variant.empty()) variants = expand_variant_spec(parse_variant_spec(o.variant, "--variant", built), matrix);
  if (side_by_side) {
    use_side_by_side_protocol(matrix, o.measure, VerdictSettings{}.confidence);
    require_unchanged_build(workers, matrix);
  }
  const Plan plan = shard_if_asked(side_by_side       ? side_by_side_plan(workers, matrix)
                                   : o.variant.empty() ? make_plan(matrix, matrix.protocol.seed)
                                                       : make_variant_plan(matrix, variants, matrix.protocol.seed),
                                   matrix, o.measure);
  if (!side_by_side) {
    ProcessLauncher launcher;
    preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  }
  const auto dir = prepare_output_dir(o.out, "calibrate-" + matrix.name);

  std::size_t failed = 0;
  std::vector<RunResults> runs;
  for (int run = 0; run < o.runs; ++run) {
    const auto run_dir = dir / fmt::format("run{}", run + 1);
    make_output_subdirectory(run_dir);
    runs.push_back(execute_plan(plan, matrix, run_dir, command_line));
    throw_if_interrupted(runs.back(), run_dir, nullptr);
    failed += totals_of(runs.back()).failed;
  }
  const std::map<std::string, double> largest_change =
      noise_floors(runs, !side_by_side && stored ? &baseline : nullptr, side_by_side);
  std::vector<double> floors;
  for (const auto& [key, floor] : largest_change) floors.push_back(floor);
  NoiseFile noise;
  noise.floors = largest_change;
  noise.about = noise_about(runs, side_by_side);
  if (plan.shard) {
    // Part of the floors: stored only when abench merge has them all.
    noise.about["shard"] = {{"index", plan.shard->index}, {"count", plan.shard->count}};
    noise.about["baseline"] = o.save_noise;
  }
  const std::string text = noise_to_json(noise).dump(2) + "\n";
  if (!plan.shard) {
    prepare_baseline_store(store);
    write_file_atomically(store / "noise.json", text);
  }
  write_file_atomically(dir / "noise.json", text);
  std::sort(floors.begin(), floors.end());
  if (!floors.empty())
    fmt::print("noise floors of {} cells over {} {}: median {:.2f}%, 90th percentile {:.2f}%, largest {:.2f}%\n",
               floors.size(), o.runs, side_by_side ? "interleaved A/A runs of the stored workers" : "runs",
               floors[floors.size() / 2] * 100, floors[floors.size() * 9 / 10] * 100, floors.back() * 100);
  if (plan.shard)
    fmt::print("shard {}/{}: {}; abench merge joins the shards' floors and stores them as '{}'\n", plan.shard->index,
               plan.shard->count, (dir / "noise.json").string(), o.save_noise);
  else
    fmt::print("stored: {}\n", (store / "noise.json").string());
  return failed ? kExitMeasurementFailed : kExitOk;
}

}  // namespace abench
