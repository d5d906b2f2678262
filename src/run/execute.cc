#include "src/run/execute.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "src/machine/conditions.h"
#include "src/plan/cost.h"
#include "src/run/added_rounds.h"
#include "src/run/beside_cpus.h"
#include "src/run/counting_pause.h"
#include "src/run/launch_frame.h"
#include "src/run/preflight.h"
#include "src/run/orchestrator.h"
#include "src/run/cpu_affinity.h"
#include "src/run/process_launcher.h"
#include "src/run/progress.h"
#include "src/run/result_saver.h"
#include "src/run/resume.h"
#include "src/run/run_origin.h"
#include "src/run/worker_registry.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/interrupt.h"
#include "src/util/json_field.h"
#include "src/util/json_file.h"
#include "src/util/timestamp.h"
#include "src/util/text.h"

namespace abench {
std::string valgrind_path() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
    const std::string path = std::string(dir) + "/valgrind";
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  throw EnvironmentError(
      "--measure instructions and --explain need valgrind, which is not installed (apt-get install "
      "valgrind)");
}

namespace {

// Where the run's processes go; recorded in its conditions.
struct Placement {
  int measured_cpu = -1;  // timed workers pin to it (-1: not pinned)
  std::vector<int> own_cpus;
  int counting_cpu = -1;  // the counting lane beside the timed rounds (-1: they go first)
  std::vector<int> start_ahead_cpus;
};

// What abench records of the machine, and where it puts its processes: abench itself
// (reading worker output, writing results after every cell) off the CPU the workers measure
// on, where another is allowed; the counting lane beside, where a counting run can be
// stopped while a timed worker samples (pidfds); paced pairs starting up ahead of their turn
// where workers are pinned and timed by the clock (a perf worker opens its counters where it
// is pinned, at start-up).
RunConditions record_conditions(const RunProtocol& p, Placement& placed) {
  release_orchestrator_cpus();  // a second run of one command starts from the full set again
  const nlohmann::json collected = collect_conditions();
  RunConditions c = conditions_from_facts(collected);
  if (p.pin) placed.measured_cpu = p.cpu >= 0 ? p.cpu : c.last_allowed_cpu();
  c.warnings = environment_warnings(collected, placed.measured_cpu, p.layout == LayoutMode::kernel);
  placed.own_cpus = c.orchestrator_cpus = keep_orchestrator_off_cpu(placed.measured_cpu);
  if (p.counts && p.counts_beside && CountingPause::supported())
    placed.counting_cpu = counting_lane_cpu(placed.measured_cpu, placed.own_cpus);
  if (placed.counting_cpu >= 0) c.counting_cpu = placed.counting_cpu;
  if (p.start_ahead && p.interleave_batches && p.pin && row_of(p.measure).wall_clock)
    placed.start_ahead_cpus = beside_cpus(placed.measured_cpu, placed.own_cpus);
  c.start_ahead_cpus = placed.start_ahead_cpus;
  return c;
}

// What the user should know before the run begins.
void say_before_running(const RunResults& results) {
  for (const std::string& w : results.conditions.warnings) fmt::print(stderr, "warning: {}\n", w);
  const RunProtocol& protocol = results.protocol;
  if (protocol.budget_s > 0)
    if (const double planned = cumulative_expected_seconds(results.plan, results.plan.jobs, protocol).back();
        planned > protocol.budget_s)
      fmt::print(stderr,
                 "warning: --budget {}: the plan's {} rounds are expected to take about {} alone, so no round "
                 "will be added (fewer --samples or a shorter --min-batch-ms make a round cheaper)\n",
                 format_duration(protocol.budget_s), protocol.processes, format_duration(planned));
  if (const auto& shard = results.plan.shard)
    fmt::print(stderr, "shard {}/{}: {} of the plan's {} cells, expected {:.0f} s of {:.0f} s\n", shard->index,
               shard->count, shard->plan_ids.size(), shard->plan_cells, shard->expected_s, shard->plan_expected_s);
}

// The orchestrator's hooks: worker paths, CPUs, results on disk between workers, progress.
OrchestratorHooks hooks_for(const RunResults& results, const Placement& placed, ResultSaver& saver,
                            ProgressLine& progress, const std::filesystem::path& dir, const FreshCopies& copies,
                            WorkerLauncher& launcher) {
  OrchestratorHooks hooks;
  hooks.counting_cpu = placed.counting_cpu;
  if (results.protocol.counts && placed.counting_cpu < 0) {
    if (placed.measured_cpu >= 0) {
      hooks.counting_first_cpus = {placed.measured_cpu};
      hooks.counting_first_cpus.insert(hooks.counting_first_cpus.end(), placed.own_cpus.begin(), placed.own_cpus.end());
    } else {  // unpinned: as many at a time as CPUs
      hooks.counting_first_cpus = results.conditions.allowed_cpus;
    }
  }
  hooks.measured_cpu = placed.measured_cpu;
  hooks.start_ahead_cpus = placed.start_ahead_cpus;
  hooks.worker_path = [](const Variant& variant, WorkerMode mode) { return worker_path(variant, mode); };
  hooks.on_update = [&saver](const RunResults&) { saver.changed(); };
  hooks.between_workers = [&saver](const RunResults& r) { saver.between_workers(r); };
  hooks.on_progress = [&progress](std::size_t done, std::size_t total, const std::string& current) {
    progress.update(done, total, current);
  };
  if (row_of(results.protocol.measure).callgrind) {
    hooks.valgrind = valgrind_path();
    hooks.callgrind_dir = (dir / "callgrind").string();
    make_output_subdirectory(hooks.callgrind_dir);
  }
  hooks.fresh_copy_dir = copies.dir();
  if (!copies.dir().empty()) hooks.fresh_copy_libraries = allocator_libraries(results.plan.variants, launcher);
  hooks.frame = frame_for(results.plan.variants, results.protocol, hooks.worker_path, hooks.valgrind,
                          row_of(results.protocol.measure).callgrind ? hooks.callgrind_dir : "",
                          {copies.dir(), hooks.fresh_copy_libraries});
  return hooks;
}

// The plan's jobs, or what an interrupted run in dir had not finished; the conditions of its
// first part stay, each resumption adding its own start.
void run_or_resume(RunResults& results, const std::filesystem::path& dir, bool resume, WorkerLauncher& launcher,
                   const OrchestratorHooks& hooks, ProgressLine& progress) {
  if (!resume) {
    record_run_origin(dir, results.run_id, results.command_line);  // so that its --resume may run its code
    progress.expect(cumulative_expected_seconds(results.plan, results.plan.jobs, results.protocol));
    run_plan(results, launcher, hooks);
    return;
  }
  const std::string path = (dir / "results.json").string();
  const nlohmann::json stored = read_json_file_below(dir, "results.json", "--resume");
  lay_out_cells(results);
  restore_finished(results, stored, path);
  check_same_timed_loops(results, timed_loops(results.plan.variants, launcher), path);
  record_run_origin(dir, results.run_id, results.command_line);  // the line it goes on with
  if (stored.contains("conditions")) {
    RunConditions first = conditions_from_json(JsonField(path, stored["conditions"], "conditions"));
    if (first.resumed.is_null()) first.resumed = nlohmann::json::array();
    first.resumed.push_back(
        {{"at", utc_timestamp("%Y-%m-%dT%H:%M:%SZ")}, {"conditions", conditions_to_json(results.conditions)}});
    results.conditions = std::move(first);
  }
  const std::vector<Job> left = jobs_left(results);
  progress.expect(cumulative_expected_seconds(results.plan, left, results.protocol));
  run_jobs(results, left, launcher, hooks);
}

}  // namespace

RunResults execute_plan(Plan plan, const Matrix& matrix, const std::filesystem::path& dir,
                        const std::vector<std::string>& command_line, bool resume) {
  const auto started = std::chrono::steady_clock::now();  // what --budget counts from
  check_layout_allowed(matrix.protocol);
  RunResults results;
  results.plan = std::move(plan);
  results.matrix = matrix;
  results.protocol = matrix.protocol;
  Placement placed;
  results.conditions = record_conditions(matrix.protocol, placed);
  results.command_line = command_line;
  results.started_at = utc_timestamp("%Y-%m-%dT%H:%M:%SZ");
  // Two runs can start within one second; the id tells them apart.
  results.run_id = fmt::format("{:016x}", std::random_device{}() * 0x100000000ull + std::random_device{}());
  say_before_running(results);

  ProgressLine progress(stderr_is_terminal());
  ResultSaver saver(dir);
  const FreshCopies copies(results.protocol);
  ProcessLauncher launcher;
  const OrchestratorHooks hooks = hooks_for(results, placed, saver, progress, dir, copies, launcher);
  run_or_resume(results, dir, resume, launcher, hooks, progress);
  if (results.protocol.until_interval > 0) run_added_rounds(results, launcher, hooks, progress, started);
  progress.finish();
  results.interrupted_by = interrupt_signal();
  results.complete = results.interrupted_by == 0;
  results.finished_at = utc_timestamp("%Y-%m-%dT%H:%M:%SZ");
  saver.save(results);
  if (results.complete) forget_run_origin(results.run_id);
  return results;
}

void throw_if_interrupted(const RunResults& results, const std::filesystem::path& dir, const char* resume_command) {
  if (results.interrupted_by == 0) return;
  std::size_t kept = 0, total = 0;
  for (const CellRecord& cell : results.cells) {
    kept += cell.processes.size() + (cell.counts ? 1 : 0);
    total += static_cast<std::size_t>(results.protocol.processes) + (results.protocol.counts ? 1 : 0);
  }
  // Adaptive rounds have no total known in advance.
  std::string what =
      results.protocol.until_interval > 0
          ? fmt::format("{} measurements and counts are kept in {}/results.json", kept, dir.string())
          : fmt::format("{} of {} measurements and counts are kept in {}/results.json", kept, total, dir.string());
  what += resume_command ? fmt::format("; resume with: abench {} --resume {}", resume_command, dir.string())
                         : std::string("; this command cannot resume: run it again");
  throw Interrupted(results.interrupted_by, what);
}

RunTotals totals_of(const RunResults& results) {
  RunTotals t;
  for (const auto& w : results.workers)
    if (w.job.mode == WorkerMode::count) t.counting_s += w.wall_s;
  for (const auto& cell : results.cells) {
    const CellSummary& s = cell.summary;
    ++t.cells;
    t.failed += s.status != CellStatus::ok && s.status != CellStatus::refused;
    t.refused += s.status == CellStatus::refused;
    t.unstable += s.unstable;
  }
  return t;
}

}  // namespace abench
