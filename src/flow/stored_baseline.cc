#include "src/flow/stored_baseline.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "src/results/timed_loops.h"
#include "src/verdict/compare.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/names.h"
#include "src/plan/measure_options.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/util/directory_lock.h"
#include "src/run/worker_registry.h"

namespace abench {

std::filesystem::path baselines_directory() {
  return std::filesystem::path(source_directory()) / "results" / "baselines";
}

std::filesystem::path baseline_store(const std::string& name, const std::string& what) {
  return baselines_directory() / checked_name(name, what);
}

void prepare_baseline_store(const std::filesystem::path& store) {
  std::filesystem::create_directories(store.parent_path());
  make_output_subdirectory(store);
  hold_output_directory(store);
}

void store_baseline_workers(const std::filesystem::path& store, const std::vector<Variant>& variants) {
  const auto dir = store / "workers";
  make_output_subdirectory(dir);
  for (const Variant& variant : variants) {
    const std::filesystem::path worker = worker_path(variant, WorkerMode::time);
    std::ifstream in(worker, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    if (!in) throw EnvironmentError(fmt::format("{}: cannot read the worker to store it", worker.string()));
    write_file_atomically(dir / ("abench-worker-" + variant.backend), bytes.str(), 0755);
  }
}

std::filesystem::path stored_workers_dir(const std::filesystem::path& results_json, bool trust_anywhere,
                                         std::string* not_trusted) {
  const auto dir = results_json.parent_path() / "workers";
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {};
  // Executables next to a results file are run only where abench stored them itself: a
  // results.json from elsewhere must not be a way to run a stranger's code.
  const auto store = std::filesystem::weakly_canonical(baselines_directory(), ec);
  const auto where = std::filesystem::weakly_canonical(dir, ec);
  const auto [in_store, _] = std::mismatch(store.begin(), store.end(), where.begin(), where.end());
  if (trust_anywhere || (!ec && in_store == store.end())) return dir;
  if (not_trusted != nullptr) *not_trusted = dir.string();
  return {};
}

std::vector<Variant> stored_worker_variants(const std::filesystem::path& workers, const Matrix& matrix) {
  std::vector<Variant> variants;
  for (const std::string& backend : matrix.backends) {
    const auto exe = workers / ("abench-worker-" + backend);
    if (!std::filesystem::exists(exe))
      throw UsageError(
          fmt::format("{}: the stored baseline has no worker for backend '{}' (it was stored from a "
                      "run without it); store the baseline again with that backend, or gate on the "
                      "stored figures with --stored-figures",
                      workers.string(), backend));
    for (Policy policy : matrix.policies) {
      Variant v;
      v.backend = backend;
      v.policy = policy;
      v.exe = exe.string();
      v.name = fmt::format("{}/{}@baseline", backend, name_of(policy));
      variants.push_back(std::move(v));
    }
  }
  return variants;
}

void use_side_by_side_protocol(Matrix& matrix, const MeasureOptions& measure, double confidence) {
  matrix.protocol.counts = false;  // counts are not gated, and stored workers come without counters
  use_paired_protocol(matrix.protocol, measure, confidence);
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
  refuse_other_timed_loops(
      {timed_loops_of(baselines, timed_loops(baselines, launcher)),
       "the stored baseline's workers (" + workers.string() + ")"},
      {timed_loops_of(candidates, timed_loops(candidates, launcher)), "this build"}, "abench gate",
      "store the baseline again with this build (abench run --save-baseline at the baseline's revision, "
      "docs/ci.md); nothing was measured");
  return plan;
}

std::string resolve_stored(const std::string& name_or_path, const char* file) {
  std::error_code ec;
  if (std::filesystem::is_directory(name_or_path, ec)) return (std::filesystem::path(name_or_path) / file).string();
  if (std::filesystem::exists(name_or_path, ec) || name_or_path.find('/') != std::string::npos ||
      name_or_path.ends_with(".json"))
    return name_or_path;
  const auto dir = baselines_directory() / name_or_path;
  if (!std::filesystem::exists(dir / file, ec)) {
    std::string stored;
    for (const auto& e : std::filesystem::directory_iterator(dir.parent_path(), ec)) {
      if (!stored.empty()) stored += ", ";
      stored += e.path().filename().string();
    }
    throw UsageError(fmt::format("no stored baseline '{}': {} does not exist (stored: {})", name_or_path,
                                 (dir / file).string(), stored.empty() ? "none" : stored));
  }
  return (dir / file).string();
}

}  // namespace abench
