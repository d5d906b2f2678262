#include "src/orchestrator.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "src/stats/statistics.h"

namespace abench {
namespace {

class JobRunner {
 public:
  JobRunner(RunResults& results, WorkerRecord& worker, const OrchestratorHooks& hooks,
            std::size_t& done, std::size_t total)
      : results_(results), worker_(worker), hooks_(hooks), done_(done), total_(total) {}

  void on_line(std::string_view line) {
    nlohmann::json message;
    try {
      message = nlohmann::json::parse(line);
      const std::string type = message.at("type").get<std::string>();
      if (type == "hello") {
        worker_.hello = message.get<WorkerHello>();
        announce_next();
      } else if (type == "cell") {
        record(message.get<CellReport>());
      } else if (type == "counts") {
        record_counts(message.get<CellCounts>());
      } else if (type == "done") {
        worker_.finished = true;
      } else if (type == "fatal") {
        worker_.protocol_error = message.value("error", "worker reported a fatal error");
      } else {
        worker_.protocol_error = fmt::format("unknown message type '{}'", type);
      }
    } catch (const std::exception& e) {
      worker_.protocol_error = fmt::format("unreadable worker output '{}': {}", line.substr(0, 200), e.what());
    }
  }

  // Cells the worker never reported fail with what happened to it.
  void finish(const LaunchOutcome& outcome) {
    worker_.outcome = outcome;
    for (int id : worker_.job.cell_ids) {
      if (reported_.contains(id)) continue;
      std::string reason = fmt::format("{} {} ({}{}) {} before reporting this cell",
                                       worker_.job.mode == WorkerMode::count ? "counting worker" : "worker",
                                       results_.plan.variants[worker_.job.variant].label(),
                                       worker_.job.mode == WorkerMode::count ? "counting run"
                                           : fmt::format("round {}", worker_.job.round + 1),
                                       worker_.hello ? fmt::format(", pid {}", worker_.hello->pid) : "",
                                       describe(outcome));
      if (!worker_.protocol_error.empty()) reason += ": " + worker_.protocol_error;
      if (!outcome.stderr_tail.empty()) reason += "; stderr: " + last_lines(outcome.stderr_tail);
      CellRecord& cell = results_.cells[static_cast<std::size_t>(id)];
      // A counting run that fails takes only the counts with it, never the timing.
      if (worker_.job.mode == WorkerMode::count)
        cell.counts_unavailable = reason;
      else
        cell.failures.push_back(reason);
      ++done_;
    }
    hooks_.on_update(results_);
  }

 private:
  static std::string last_lines(const std::string& text) {
    std::string tail = text.size() > 600 ? fmt::format("...{}", text.substr(text.size() - 600)) : text;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    return tail;
  }

  // The cell a report is for, if this job asked for it and it was not reported before.
  CellRecord* accept(int id) {
    if (id < 0 || static_cast<std::size_t>(id) >= results_.cells.size() ||
        !std::count(worker_.job.cell_ids.begin(), worker_.job.cell_ids.end(), id)) {
      worker_.protocol_error = fmt::format("report for cell {} that was not asked for", id);
      return nullptr;
    }
    if (!reported_.insert(id).second) return nullptr;
    return &results_.cells[static_cast<std::size_t>(id)];
  }

  void reported() {
    ++done_;
    hooks_.on_update(results_);
    announce_next();
  }

  void record_counts(const CellCounts& counts) {
    CellRecord* cell = accept(counts.id);
    if (cell == nullptr) return;
    if (counts.ok)
      cell->counts = counts;
    else
      cell->counts_unavailable = counts.error;
    reported();
  }

  void record(const CellReport& report) {
    CellRecord* record = accept(report.id);
    if (record == nullptr) return;
    CellRecord& cell = *record;
    if (!report.ok && report.error.starts_with(kRefusedPrefix)) {
      cell.refusal = report.error;
    } else if (!report.ok || report.sample_ns_per_op.empty()) {
      cell.failures.push_back(report.ok ? "worker reported no samples" : report.error);
    } else {
      ProcessMeasurement m;
      m.round = worker_.job.round;
      m.pid = worker_.hello ? worker_.hello->pid : 0;
      m.cpu = worker_.hello ? worker_.hello->pinned_cpu : -1;
      m.seed = worker_.job.seed;
      m.iterations = report.iterations;
      m.warmup_batches = report.warmup_batches;
      m.sample_ns_per_op = report.sample_ns_per_op;
      m.median_ns_per_op = median(report.sample_ns_per_op);
      m.data_accesses_per_op = report.data_accesses_per_op;
      m.counter_samples_per_op = report.counter_samples_per_op;
      cell.processes.push_back(std::move(m));
    }
    reported();
  }

  void announce_next() {
    std::string current = results_.plan.variants[worker_.job.variant].label();
    if (worker_.job.mode == WorkerMode::count) current += " counting";
    if (worker_.hello && reported_.size() < worker_.hello->order.size()) {
      const int next = worker_.hello->order[reported_.size()];
      if (next >= 0 && static_cast<std::size_t>(next) < results_.cells.size())
        current = fmt::format("{} {}", current, cell_label(results_.cells[static_cast<std::size_t>(next)].cell.spec));
    }
    hooks_.on_progress(done_, total_, current);
  }

  RunResults& results_;
  WorkerRecord& worker_;
  const OrchestratorHooks& hooks_;
  std::size_t& done_;
  std::size_t total_;
  std::set<int> reported_;
};

}  // namespace

double worker_timeout_s(const RunProtocol& protocol, std::size_t cells) {
  if (protocol.worker_timeout_s > 0) return protocol.worker_timeout_s;
  // A cell takes about (warmup doublings + samples) batches of up to twice the minimum
  // batch time; allow ten times that, plus start-up, before calling a worker hung.
  const double per_cell_s = (20.0 + protocol.samples) * 2 * protocol.min_batch_ms / 1000.0;
  return 60.0 + 10.0 * per_cell_s * static_cast<double>(cells);
}

namespace {
// compare measures both sides of a pair at one iteration count: the count of the first
// process that measured either side.
std::uint64_t paired_iterations(const RunResults& results, int id) {
  if (results.plan.partner.empty()) return 0;
  for (int cell : {id, results.plan.partner[static_cast<std::size_t>(id)]}) {
    const auto& processes = results.cells[static_cast<std::size_t>(cell)].processes;
    if (!processes.empty()) return processes.front().iterations;
  }
  return 0;
}
}  // namespace

LaunchRequest make_launch_request(const RunResults& results, const Job& job, const OrchestratorHooks& hooks) {
  const Variant& variant = results.plan.variants[job.variant];
  LaunchRequest request;
  request.executable = hooks.worker_path(variant, job.mode);
  request.environment = variant.env;
  if (!variant.preload.empty()) {
    request.environment.emplace_back("LD_PRELOAD", variant.preload);
    request.environment.emplace_back("ABENCH_EXPECT_MALLOC_FROM", variant.preload);
  }
  request.stdin_text = nlohmann::json(make_worker_request(results, job)).dump() + "\n";
  request.timeout_s = worker_timeout_s(results.protocol, job.cell_ids.size());
  if (job.mode == WorkerMode::time && results.protocol.measure == Measure::instructions) {
    // Collection starts off; the worker switches it on around each measured region and
    // reads its dumps from this directory. --cache-sim adds data reads and writes.
    request.arguments = {"--tool=callgrind", "--collect-atstart=no", "--cache-sim=yes",
                         "--callgrind-out-file=" + hooks.callgrind_dir + "/callgrind.%p", "--", request.executable};
    request.executable = hooks.valgrind;
    request.environment.emplace_back("ABENCH_CALLGRIND_DIR", hooks.callgrind_dir);
    // jemalloc purges dirty pages on a timer, so its instruction counts would follow the
    // clock; with decay off they repeat exactly. A MALLOC_CONF the variant sets wins.
    const bool own_conf = std::any_of(variant.env.begin(), variant.env.end(),
                                      [](const auto& kv) { return kv.first == "MALLOC_CONF"; });
    if (variant.backend == "jemalloc" && !own_conf)
      request.environment.emplace_back("MALLOC_CONF", kDeterministicJemallocConf);
    request.timeout_s *= 20;  // callgrind runs code ~50x slower; cells are few operations
  }
  return request;
}

WorkerRequest make_worker_request(const RunResults& results, const Job& job) {
  WorkerRequest request;
  for (int id : job.cell_ids) {
    request.cells.push_back(results.cells[static_cast<std::size_t>(id)].cell.spec);
    if (job.mode == WorkerMode::time) request.cells.back().fixed_iterations = paired_iterations(results, id);
  }
  request.plugin = results.plan.variants[job.variant].plugin;
  request.entry_set = results.plan.variants[job.variant].entry;
  request.measure = job.mode == WorkerMode::time ? results.protocol.measure : Measure::time;
  request.mode = job.mode;
  const RunProtocol& p = results.protocol;
  request.sampler.min_batch_ns = static_cast<std::uint64_t>(p.min_batch_ms * 1e6);
  request.sampler.samples = p.samples;
  request.touch = p.touch;
  request.pin = p.pin;
  request.cpu = p.cpu;
  request.order = p.order;
  request.seed = job.seed;
  return request;
}

void run_plan(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks) {
  results.cells.clear();
  for (const auto& cell : results.plan.cells) results.cells.push_back({cell, std::nullopt, {}, {}, "", ""});
  std::size_t done = 0;
  std::size_t total = 0;
  for (const auto& job : results.plan.jobs) total += job.cell_ids.size();
  hooks.on_update(results);

  results.workers.reserve(results.plan.jobs.size());
  for (const Job& job : results.plan.jobs) {
    results.workers.push_back({job, std::nullopt, {}, "", false, 0});
    WorkerRecord& worker = results.workers.back();
    const LaunchRequest request = make_launch_request(results, job, hooks);
    JobRunner runner(results, worker, hooks, done, total);
    hooks.on_progress(done, total, results.plan.variants[job.variant].label() + " starting");
    const auto start = std::chrono::steady_clock::now();
    const LaunchOutcome outcome =
        launcher.run(request, [&](std::string_view line) { runner.on_line(line); });
    worker.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    runner.finish(outcome);
  }
}

}  // namespace abench
