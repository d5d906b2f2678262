#include "src/util/atomic_file.h"
#include "src/run/execute.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <random>

#include <fmt/format.h>

#include "src/machine/conditions.h"
#include "src/plan/cost.h"
#include "src/run/adaptive_rounds.h"
#include "src/run/beside_cpus.h"
#include "src/run/counting_pause.h"
#include "src/run/orchestrator.h"
#include "src/run/cpu_affinity.h"
#include "src/run/process_launcher.h"
#include "src/run/progress.h"
#include "src/run/result_saver.h"
#include "src/run/resume.h"
#include "src/run/run_origin.h"
#include "src/run/worker_registry.h"
#include "src/util/errors.h"
#include "src/util/interrupt.h"
#include "src/util/json_file.h"
#include "src/util/timestamp.h"
#include "src/util/text.h"

namespace abench {
std::string valgrind_path() {
  for (const char* dir : {"/usr/bin", "/usr/local/bin"}) {
    const std::string path = std::string(dir) + "/valgrind";
    if (access(path.c_str(), X_OK) == 0) return path;
  }
  throw EnvironmentError("--measure instructions and --explain need valgrind, which is not installed (apt-get install "
                         "valgrind)");
}

RunResults execute_plan(Plan plan, const Matrix& matrix, const std::filesystem::path& dir,
                        const std::vector<std::string>& command_line, bool resume) {
  const auto started = std::chrono::steady_clock::now();  // what --budget counts from
  RunResults results;
  results.plan = std::move(plan);
  results.matrix = matrix;
  results.protocol = matrix.protocol;
  release_orchestrator_cpus();  // a second run of one command starts from the full set again
  results.conditions = collect_conditions();
  results.command_line = command_line;
  results.started_at = utc_timestamp("%Y-%m-%dT%H:%M:%SZ");
  // Two runs can start within one second; the id tells them apart.
  results.run_id = fmt::format("{:016x}", std::random_device{}() * 0x100000000ull + std::random_device{}());

  // The CPU the workers will pin to, for the isolation check.
  int cpu = -1;
  if (matrix.protocol.pin) {
    cpu = matrix.protocol.cpu;
    if (cpu < 0 && results.conditions["allowed_cpus"].is_array() && !results.conditions["allowed_cpus"].empty())
      cpu = results.conditions["allowed_cpus"].back().get<int>();
  }
  results.conditions["warnings"] = environment_warnings(results.conditions, cpu);
  // abench itself (reading worker output, writing results after every cell) keeps off the
  // CPU the workers measure on, where another CPU is allowed. Workers pin themselves.
  const std::vector<int> own_cpus = keep_orchestrator_off_cpu(cpu);
  results.conditions["orchestrator_cpus"] = own_cpus;
  // Beside, a counting run is stopped while a timed worker samples: where that cannot be
  // done (no pidfds), counting runs go first.
  const int counting_cpu = matrix.protocol.counts && matrix.protocol.counts_beside && CountingPause::supported()
                               ? counting_lane_cpu(cpu, own_cpus)
                               : -1;
  results.conditions["counting_cpu"] = counting_cpu >= 0 ? nlohmann::json(counting_cpu) : nlohmann::json(nullptr);
  // Where paced pairs start up ahead of their turn (none: they start when it comes): pinned
  // workers (a CPU to move to), timed by the clock (a perf worker opens its counters where
  // it is pinned, at start-up).
  const RunProtocol& protocol = matrix.protocol;
  const std::vector<int> start_ahead_cpus = protocol.start_ahead && protocol.interleave_batches && protocol.pin &&
                                                    protocol.measure == Measure::time
                                                ? beside_cpus(cpu, own_cpus)
                                                : std::vector<int>{};
  results.conditions["start_ahead_cpus"] = start_ahead_cpus;
  for (const auto& w : results.conditions["warnings"]) fmt::print(stderr, "warning: {}\n", w.get<std::string>());
  if (protocol.budget_s > 0)
    if (const double planned = cumulative_expected_seconds(results.plan, results.plan.jobs, protocol).back();
        planned > protocol.budget_s)
      fmt::print(stderr, "warning: --budget {}: the plan's {} rounds are expected to take about {} alone, so no round "
                 "will be added (fewer --samples or a shorter --min-batch-ms make a round cheaper)\n",
                 format_duration(protocol.budget_s), protocol.processes, format_duration(planned));
  if (const auto& shard = results.plan.shard)
    fmt::print(stderr, "shard {}/{}: {} of the plan's {} cells, expected {:.0f} s of {:.0f} s\n", shard->index,
               shard->count, shard->plan_ids.size(), shard->plan_cells, shard->expected_s, shard->plan_expected_s);

  ProgressLine progress(stderr_is_terminal());
  OrchestratorHooks hooks;
  hooks.counting_cpu = counting_cpu;
  if (matrix.protocol.counts && counting_cpu < 0) {
    if (cpu >= 0) {
      hooks.counting_first_cpus = {cpu};
      hooks.counting_first_cpus.insert(hooks.counting_first_cpus.end(), own_cpus.begin(), own_cpus.end());
    } else if (results.conditions["allowed_cpus"].is_array()) {  // unpinned: as many at a time as CPUs
      hooks.counting_first_cpus = results.conditions["allowed_cpus"].get<std::vector<int>>();
    }
  }
  hooks.measured_cpu = cpu;
  hooks.start_ahead_cpus = start_ahead_cpus;
  hooks.worker_path = [](const Variant& variant, WorkerMode mode) { return worker_path(variant, mode); };
  ResultSaver saver(dir);
  hooks.on_update = [&](const RunResults&) { saver.changed(); };
  hooks.between_workers = [&](const RunResults& r) { saver.between_workers(r); };
  hooks.on_progress = [&](std::size_t done, std::size_t total, const std::string& current) {
    progress.update(done, total, current);
  };
  if (matrix.protocol.measure == Measure::instructions) {
    hooks.valgrind = valgrind_path();
    hooks.callgrind_dir = (dir / "callgrind").string();
    make_output_subdirectory(hooks.callgrind_dir);
  }
  ProcessLauncher launcher;
  if (resume) {
    const std::string path = (dir / "results.json").string();
    const nlohmann::json stored = read_json_file(path, "--resume");
    lay_out_cells(results);
    restore_finished(results, stored, path);
    record_run_origin(dir, results.run_id, results.command_line);  // the line it goes on with
    if (stored.contains("conditions")) {
      // The conditions of the first part stay; each resumption adds its own start.
      nlohmann::json first = stored["conditions"];
      first["resumed"] = stored["conditions"].value("resumed", nlohmann::json::array());
      first["resumed"].push_back({{"at", utc_timestamp("%Y-%m-%dT%H:%M:%SZ")}, {"conditions", results.conditions}});
      results.conditions = std::move(first);
    }
    const std::vector<Job> left = jobs_left(results);
    progress.expect(cumulative_expected_seconds(results.plan, left, results.protocol));
    run_jobs(results, left, launcher, hooks);
  } else {
    record_run_origin(dir, results.run_id, results.command_line);  // so that its --resume may run its code
    progress.expect(cumulative_expected_seconds(results.plan, results.plan.jobs, results.protocol));
    run_plan(results, launcher, hooks);
  }
  if (const RunProtocol& p = results.protocol; p.until_interval > 0) {
    const IntervalTarget target{p.until_interval, p.max_rounds, p.interval_confidence, p.budget_s};
    const std::size_t judged = results.plan.partner.empty() ? results.cells.size() : results.cells.size() / 2;
    std::size_t last_unresolved = judged + 1;
    int added = 0;
    run_adaptive_rounds(results, target, launcher, hooks, started, [&](const RoundAnnouncement& round) {
      ++added;
      if (round.seconds_left < 0) {
        progress.finish();
        fmt::print(stderr, "round {}: {} cell{} still wider than {:g}%\n", round.jobs.front().round + 1, round.cells,
                   round.cells == 1 ? "" : "s", p.until_interval * 100);
      } else {
        // Cells stand at different rounds under a budget: the rounds added are counted instead.
        // A budget's rounds can be many: a line when the count of wide cells changes, the
        // progress line in between.
        const std::string status = fmt::format("{} of {} cells still wider than {:g}%, {} of the budget left",
                                               round.unresolved, judged, p.until_interval * 100,
                                               format_duration(round.seconds_left));
        if (round.unresolved != last_unresolved) {
          progress.finish();
          fmt::print(stderr, "added round {}: {} (this round: {} cell{})\n", added, status, round.cells,
                     round.cells == 1 ? "" : "s");
          last_unresolved = round.unresolved;
        }
        progress.note(fmt::format("added round {}: {}", added, status));
      }
      progress.expect(cumulative_expected_seconds(results.plan, round.jobs, results.protocol));
    });
    if (p.budget_s > 0 && interrupt_signal() == 0) {
      progress.finish();
      const std::size_t wide = cells_left_wide(results, target);
      fmt::print(stderr, "--budget {}: measured in {}; {} cell{} still wider than {:g}%{}\n", format_duration(p.budget_s),
                 format_duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()),
                 wide, wide == 1 ? "" : "s", p.until_interval * 100,
                 wide ? " (not expected to narrow in the time left, or at --max-rounds)" : "");
    }
  }
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
  std::string what = results.protocol.until_interval > 0
                         ? fmt::format("{} measurements and counts are kept in {}/results.json", kept, dir.string())
                         : fmt::format("{} of {} measurements and counts are kept in {}/results.json", kept, total,
                                       dir.string());
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
