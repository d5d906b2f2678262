#include "src/orchestrator.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <set>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/stats/statistics.h"
#include "src/util/interrupt.h"
#include "src/util/text.h"

namespace abench {
namespace {

// How long a worker may go without a protocol line before it is called hung: its start,
// a cell's warm-up, a cell's samples once warm-up fixed the batch (the worker says how long
// a batch takes), a counting cell. Ten times what is expected, plus a few seconds for a
// loaded machine; --worker-timeout replaces them all.
struct Allowances {
  double start_s, warmup_s, counting_s, per_sample_factor = 10, slack_s = 5;
  double user_s = 0;

  explicit Allowances(const RunProtocol& p) : user_s(p.worker_timeout_s) {
    const double batch_s = p.min_batch_ms / 1000.0;
    const bool callgrind = p.measure == Measure::instructions;  // ~50x slower, and slow to start
    start_s = callgrind ? 120 : 30;
    // Warm-up doubles the batch until it lasts min_batch: about 4 batches' time; a compare's
    // fixed count may be slower on this side.
    warmup_s = callgrind ? 120 : slack_s + 10 * 4 * batch_s;
    counting_s = 30;
  }
  double or_user(double s) const { return user_s > 0 ? user_s : s; }
  double start() const { return or_user(start_s); }
  double next_cell(WorkerMode mode) const { return or_user(mode == WorkerMode::count ? counting_s : warmup_s); }
  double samples(double batch_ns, int samples) const {
    return or_user(slack_s + per_sample_factor * std::max(samples, 1) * batch_ns / 1e9);
  }
};

class JobRunner {
 public:
  JobRunner(RunResults& results, std::size_t worker, const OrchestratorHooks& hooks, std::size_t& done,
            std::size_t total)
      : results_(results), worker_index_(worker), hooks_(hooks), done_(done), total_(total),
        allowances_(results.protocol) {}

  double first_allowance() const { return allowances_.start(); }

  // Returns the seconds the worker may take for its next line.
  double on_line(std::string_view line) {
    WorkerRecord& worker = this->worker();
    nlohmann::json message;
    try {
      message = nlohmann::json::parse(line);
      const std::string type = message.at("type").get<std::string>();
      if (worker.finished) {
        worker.protocol_error = fmt::format("a '{}' message after 'done'", printable(type));
      } else if (type == "hello") {
        worker.hello = message.get<WorkerHello>();
        announce_next();
        return allowances_.next_cell(worker.job.mode);
      } else if (type == "warm") {
        return allowances_.samples(static_cast<double>(whole_number<std::uint64_t>(message.at("batch_ns"), "batch_ns")),
                                   whole_number<int>(message.at("samples"), "samples"));
      } else if (type == "cell") {
        record(message.get<CellReport>());
        return allowances_.next_cell(worker.job.mode);
      } else if (type == "counts") {
        record_counts(message.get<CellCounts>());
        return allowances_.next_cell(worker.job.mode);
      } else if (type == "done") {
        worker.finished = true;
        if (reported_.size() < worker.job.cell_ids.size())
          worker.protocol_error = fmt::format("'done' with {} of its {} cells unreported",
                                              worker.job.cell_ids.size() - reported_.size(), worker.job.cell_ids.size());
      } else if (type == "fatal") {
        worker.protocol_error = printable(message.value("error", "worker reported a fatal error"));
      } else {
        worker.protocol_error = fmt::format("unknown message type '{}'", printable(type));
      }
    } catch (const std::exception& e) {
      worker.protocol_error =
          fmt::format("unreadable worker output '{}': {}", printable(line.substr(0, 200)), printable(e.what()));
    }
    return 0;
  }

  // Cells the worker never reported: the one it was running fails with what happened to
  // it; the ones it had not reached are returned, to run in a fresh worker. Before its
  // hello (it could not start, or refused) every cell fails. An interrupted worker fails
  // nothing: its cells stay pending for --resume.
  std::vector<int> finish(const LaunchOutcome& outcome) {
    WorkerRecord& worker = this->worker();
    worker.outcome = outcome;
    // The launcher gives printable text; a launcher that does not must not cost the results
    // file its validity (found by the protocol fuzz target with a launcher of raw bytes).
    for (std::string* text : {&worker.outcome.stdout_tail, &worker.outcome.stderr_tail, &worker.outcome.start_error,
                              &worker.outcome.protocol_error})
      *text = printable(*text);
    std::vector<int> unreported;
    const std::vector<int>& order = worker.hello ? worker.hello->order : worker.job.cell_ids;
    for (int id : order)
      if (!reported_.contains(id) && std::count(worker.job.cell_ids.begin(), worker.job.cell_ids.end(), id)) unreported.push_back(id);
    for (int id : worker.job.cell_ids)  // a hello whose order left cells out
      if (!reported_.contains(id) && !std::count(unreported.begin(), unreported.end(), id)) unreported.push_back(id);
    std::vector<int> not_reached;
    if (outcome.interrupted_by != 0 || unreported.empty()) {
      hooks_.on_update(results_);
      return not_reached;
    }
    // Only a worker that got going and then died or hung mid-cell has a cell to blame.
    const bool one_cell_to_blame = worker.hello && !worker.finished && outcome.started;
    const std::string what = describe(worker.outcome);
    for (std::size_t k = 0; k < unreported.size(); ++k) {
      const int id = unreported[k];
      if (one_cell_to_blame && k > 0) {
        not_reached.push_back(id);
        continue;
      }
      fail(id, one_cell_to_blame ? fmt::format("{} while running this cell", what)
                                 : fmt::format("{} before reporting this cell", what),
           worker.outcome);
    }
    hooks_.on_update(results_);
    return not_reached;
  }

 private:
  WorkerRecord& worker() { return results_.workers[worker_index_]; }

  void fail(int id, const std::string& what, const LaunchOutcome& outcome) {
    const WorkerRecord& worker = this->worker();
    std::string reason = fmt::format("{} {} ({}{}) {}",
                                     worker.job.mode == WorkerMode::count ? "counting worker" : "worker",
                                     results_.plan.variants[worker.job.variant].label(),
                                     worker.job.mode == WorkerMode::count ? "counting run"
                                         : fmt::format("round {}", worker.job.round + 1),
                                     worker.hello ? fmt::format(", pid {}", worker.hello->pid) : "", what);
    if (!worker.protocol_error.empty()) reason += ": " + worker.protocol_error;
    if (!outcome.stderr_tail.empty()) reason += "; stderr: " + last_lines(outcome.stderr_tail);
    if (!outcome.stdout_tail.empty()) reason += "; its output (stdout): " + last_lines(outcome.stdout_tail);
    CellRecord& cell = results_.cells[static_cast<std::size_t>(id)];
    // A counting run that fails takes only the counts with it, never the timing.
    if (worker.job.mode == WorkerMode::count)
      cell.counts_unavailable = reason;
    else
      cell.failures.push_back(reason);
    mark_done(cell);
    ++done_;
  }

  static std::string last_lines(const std::string& text) {
    std::string tail = text.size() > 600 ? fmt::format("...{}", printable_tail(text, 600)) : text;
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
    return tail;
  }

  // The cell a report is for, if this job asked for it and it was not reported before.
  CellRecord* accept(int id) {
    WorkerRecord& worker = this->worker();
    if (id < 0 || static_cast<std::size_t>(id) >= results_.cells.size() ||
        !std::count(worker.job.cell_ids.begin(), worker.job.cell_ids.end(), id)) {
      worker.protocol_error = fmt::format("report for cell {} that was not asked for", id);
      return nullptr;
    }
    if (!reported_.insert(id).second) return nullptr;
    CellRecord& cell = results_.cells[static_cast<std::size_t>(id)];
    mark_done(cell);
    return &cell;
  }

  void mark_done(CellRecord& cell) {
    const Job& job = worker().job;
    if (job.mode == WorkerMode::count)
      cell.counting_done = true;
    else if (!std::count(cell.rounds_done.begin(), cell.rounds_done.end(), job.round))
      cell.rounds_done.push_back(job.round);
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
      cell->counts_unavailable = printable(counts.error);
    reported();
  }

  void record(const CellReport& report) {
    CellRecord* record = accept(report.id);
    if (record == nullptr) return;
    CellRecord& cell = *record;
    const WorkerRecord& worker = this->worker();
    if (!report.ok && report.error.starts_with(kRefusedPrefix)) {
      cell.refusal = printable(report.error);
    } else if (!report.ok || report.sample_ns_per_op.empty()) {
      cell.failures.push_back(report.ok ? "worker reported no samples" : printable(report.error));
    } else {
      ProcessMeasurement m;
      m.round = worker.job.round;
      m.pid = worker.hello ? worker.hello->pid : 0;
      m.cpu = worker.hello ? worker.hello->pinned_cpu : -1;
      m.seed = worker.job.seed;
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
    const WorkerRecord& worker = this->worker();
    std::string current = results_.plan.variants[worker.job.variant].label();
    if (worker.job.mode == WorkerMode::count) current += " counting";
    if (worker.hello && reported_.size() < worker.hello->order.size()) {
      const int next = worker.hello->order[reported_.size()];
      if (next >= 0 && static_cast<std::size_t>(next) < results_.cells.size())
        current = fmt::format("{} {}", current, cell_label(results_.cells[static_cast<std::size_t>(next)].cell.spec));
    }
    hooks_.on_progress(done_, total_, current);
  }

  RunResults& results_;
  std::size_t worker_index_;  // into results_.workers, which grows while jobs run
  const OrchestratorHooks& hooks_;
  std::size_t& done_;
  std::size_t total_;
  Allowances allowances_;
  std::set<int> reported_;
};

}  // namespace

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
  request.timeout_s = Allowances(results.protocol).start();
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
  request.order = job.continuation ? CellOrder::matrix : p.order;
  request.seed = job.seed;
  return request;
}

void lay_out_cells(RunResults& results) {
  results.cells.clear();
  for (const auto& cell : results.plan.cells) results.cells.push_back({cell, std::nullopt, {}, {}, "", "", {}, false});
  results.workers.clear();
}

void run_plan(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks) {
  lay_out_cells(results);
  run_jobs(results, results.plan.jobs, launcher, hooks);
}

std::size_t run_jobs(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher,
                     const OrchestratorHooks& hooks) {
  std::size_t done = 0;
  std::size_t total = 0;
  for (const auto& job : jobs) total += job.cell_ids.size();
  hooks.on_update(results);

  std::deque<Job> queue(jobs.begin(), jobs.end());
  while (!queue.empty() && interrupt_signal() == 0) {
    const Job job = queue.front();
    queue.pop_front();
    results.workers.push_back({job, std::nullopt, {}, "", false, 0});
    const std::size_t index = results.workers.size() - 1;
    JobRunner runner(results, index, hooks, done, total);
    const LaunchRequest request = make_launch_request(results, job, hooks);
    hooks.on_progress(done, total, results.plan.variants[job.variant].label() + " starting");
    const auto start = std::chrono::steady_clock::now();
    const LaunchOutcome outcome = launcher.run(request, [&](std::string_view line) { return runner.on_line(line); });
    results.workers[index].wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (std::vector<int> rest = runner.finish(outcome); !rest.empty()) {
      Job continuation = job;
      continuation.cell_ids = std::move(rest);
      continuation.continuation = true;
      queue.push_front(std::move(continuation));  // before the next job: rounds keep their order
    }
  }
  return done;
}

}  // namespace abench
