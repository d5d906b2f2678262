#include "src/flow/calibrate_flow.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "src/flow/measure_setup.h"
#include "src/flow/stored_baseline.h"
#include "src/flow/verdict_files.h"
#include "src/flow/output_directory.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/run/execute.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/verdict/compare.h"
#include "src/verdict/noise_floors.h"

namespace abench {
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
      throw UsageError(
          fmt::format("calibrate measures an unchanged build beside its stored baseline, but {} differs "
                      "from {}: store the baseline again from this build first (run --save-baseline)",
                      built, stored.string()));
  }
}

// Like the gate: without --matrix, the stored baseline's own matrix, protocol and seed.
Matrix calibrate_matrix(const CalibrateRequest& r, const RunResults& baseline, bool stored) {
  const auto built = built_backends();
  if (r.measure.matrix.empty() && stored) return matrix_of_results(baseline.matrix, r.measure, built);
  MeasureOptions measure = r.measure;
  if (measure.matrix.empty()) measure.matrix = "default";
  if (!measure.protocol.has("seed") && baseline.protocol.seed)
    measure.protocol.give("seed", baseline.protocol.seed);  // the gate's cell orders
  return load_measure_matrix(measure, built);
}

void print_floors(const NoiseFile& noise, int runs, bool side_by_side) {
  std::vector<double> floors;
  for (const auto& [key, floor] : noise.floors) floors.push_back(floor);
  if (floors.empty()) return;
  std::sort(floors.begin(), floors.end());
  fmt::print("noise floors of {} cells over {} {}: median {:.2f}%, 90th percentile {:.2f}%, largest {:.2f}%\n",
             floors.size(), runs, side_by_side ? "interleaved A/A runs of the stored workers" : "runs",
             floors[floors.size() / 2] * 100, floors[floors.size() * 9 / 10] * 100, floors.back() * 100);
}

}  // namespace

// The noise that matters is how far an unchanged build moves in the comparison the gate
// will make. Where the stored baseline has its workers, the gate measures them again beside
// the candidate, so calibrate runs that comparison `runs` times with the build they were
// stored from as the candidate (A/A: the same code at another path, as the gate will see
// it) and keeps per cell the largest change between the two sides. Else the gate compares
// with figures stored earlier, so calibrate makes `runs` runs one after another with the
// same seed and keeps the largest change of the median between any two runs, the stored
// figures counted as a run.
CalibrateOutcome run_calibrate(const CalibrateRequest& r, const std::vector<std::string>& command_line) {
  const auto store = baseline_store(r.save_noise, "--save-noise");
  const bool stored = std::filesystem::exists(store / "results.json");
  const RunResults baseline = stored ? load_results((store / "results.json").string()) : RunResults{};
  Matrix matrix = calibrate_matrix(r, baseline, stored);
  const auto workers = stored ? stored_workers_dir(store / "results.json", true, nullptr) : std::filesystem::path();
  const bool side_by_side = r.variant.empty() && !workers.empty() && !row_of(matrix.protocol.measure).exact;
  std::vector<Variant> variants;
  if (!r.variant.empty())
    variants = expand_variant_spec(parse_variant_spec(r.variant, "--variant", built_backends()), matrix);
  if (side_by_side) {
    use_side_by_side_protocol(matrix, r.measure, VerdictSettings{}.confidence);
    require_unchanged_build(workers, matrix);
  }
  const Plan plan = shard_if_asked(side_by_side        ? side_by_side_plan(workers, matrix)
                                   : r.variant.empty() ? make_plan(matrix, matrix.protocol.seed)
                                                       : make_variant_plan(matrix, variants, matrix.protocol.seed),
                                   matrix, r.measure);
  if (!side_by_side) {
    ProcessLauncher launcher;
    preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  }
  const auto dir = prepare_output_dir(r.out, "calibrate-" + matrix.name);

  CalibrateOutcome outcome;
  std::vector<RunResults> runs;
  for (int run = 0; run < r.runs; ++run) {
    const auto run_dir = dir / fmt::format("run{}", run + 1);
    make_output_subdirectory(run_dir);
    runs.push_back(execute_plan(plan, matrix, run_dir, command_line));
    throw_if_interrupted(runs.back(), run_dir, nullptr);
    outcome.failed_cells += totals_of(runs.back()).failed;
  }
  NoiseFile noise;
  noise.floors = noise_floors(runs, !side_by_side && stored ? &baseline : nullptr, side_by_side);
  noise.about = noise_about(runs, side_by_side);
  if (plan.shard) {
    // Part of the floors: stored only when abench merge has them all.
    noise.about["shard"] = {{"index", plan.shard->index}, {"count", plan.shard->count}};
    noise.about["baseline"] = r.save_noise;
  }
  if (!plan.shard) {
    prepare_baseline_store(store);
    write_noise_file(noise, store);
  }
  write_noise_file(noise, dir);
  print_floors(noise, r.runs, side_by_side);
  if (plan.shard)
    fmt::print("shard {}/{}: {}; abench merge joins the shards' floors and stores them as '{}'\n", plan.shard->index,
               plan.shard->count, (dir / "noise.json").string(), r.save_noise);
  else
    fmt::print("stored: {}\n", (store / "noise.json").string());
  return outcome;
}

}  // namespace abench
