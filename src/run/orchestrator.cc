#include "src/run/orchestrator.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/util/errors.h"
#include "src/run/batch_pacer.h"
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
  // A paced worker's allowance runs only while it is not waiting for its partner
  // (LaunchRequest::clock_start): after its warm-up, one sample at a time.
  double paced_sample(double batch_ns) const { return or_user(slack_s + per_sample_factor * batch_ns / 1e9); }
};

class JobRunner {
 public:
  JobRunner(RunResults& results, std::size_t worker, const OrchestratorHooks& hooks, std::size_t& done,
            std::size_t total, bool paced = false)
      : results_(results), worker_index_(worker), hooks_(hooks), done_(done), total_(total),
        allowances_(results.protocol), paced_(paced) {}

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
        batch_ns_ = static_cast<double>(whole_number<std::uint64_t>(message.at("batch_ns"), "batch_ns"));
        return paced_ ? allowances_.paced_sample(batch_ns_)
                      : allowances_.samples(batch_ns_, whole_number<int>(message.at("samples"), "samples"));
      } else if (type == "sampled") {
        if (!paced_) worker.protocol_error = "a 'sampled' message from a worker that is not paced";
        return allowances_.paced_sample(batch_ns_);
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
    if (outcome.interrupted_by != 0 || outcome.cancelled || unreported.empty()) {
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
      m.cpu = report.cpu >= 0 ? report.cpu : worker.hello ? worker.hello->pinned_cpu : -1;
      m.seed = worker.job.seed;
      m.iterations = report.iterations;
      m.warmup_batches = report.warmup_batches;
      m.warm = report.warm;
      m.sample_iterations = report.sample_iterations;
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
  bool paced_;
  double batch_ns_ = 0;  // the last warm-up batch's, from "warm"
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

// Paced pairs start up beside the measured CPU (the caller decides where that applies).
bool starts_ahead(const OrchestratorHooks& hooks) {
  return !hooks.start_ahead_cpus.empty() && hooks.measured_cpu >= 0;
}
}  // namespace

LaunchRequest make_launch_request(const RunResults& results, const Job& job, const OrchestratorHooks& hooks,
                                  int pace_fd) {
  const Variant& variant = results.plan.variants[job.variant];
  LaunchRequest request;
  request.executable = hooks.worker_path(variant, job.mode);
  request.environment = variant.env;
  if (!variant.preload.empty()) {
    request.environment.emplace_back("LD_PRELOAD", variant.preload);
    request.environment.emplace_back("ABENCH_EXPECT_MALLOC_FROM", variant.preload);
  }
  WorkerRequest worker_request = make_worker_request(results, job);
  if (job.mode == WorkerMode::count && hooks.counting_cpu >= 0) worker_request.cpu = hooks.counting_cpu;
  worker_request.paced = pace_fd >= 0;
  if (worker_request.paced && worker_request.pin && starts_ahead(hooks)) {
    worker_request.pin_when_told = true;
    worker_request.cpu = hooks.measured_cpu;
    request.start_cpus = hooks.start_ahead_cpus;
  }
  request.pace_fd = pace_fd;
  request.stdin_text = nlohmann::json(worker_request).dump() + "\n";
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
  // A compare's two sides run the same counts batch by batch; a run's cells have no partner.
  request.sampler.follow_rate = results.plan.partner.empty();
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
  for (const auto& cell : results.plan.cells) {
    CellRecord record;
    record.cell = cell;
    results.cells.push_back(std::move(record));
  }
  results.workers.clear();
}

void run_plan(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks) {
  lay_out_cells(results);
  run_jobs(results, results.plan.jobs, launcher, hooks);
}

namespace {

// The two jobs the queue starts with, if they are the two sides of one cell in one round of
// a compare run at --interleave batch: they run together, paced.
bool paced_pair(const RunResults& results, const std::deque<Job>& queue) {
  if (!results.protocol.interleave_batches || queue.size() < 2 || results.plan.partner.empty()) return false;
  const Job& a = queue[0];
  const Job& b = queue[1];
  const auto one_timed_cell = [](const Job& j) {
    return j.mode == WorkerMode::time && j.cell_ids.size() == 1 && !j.continuation;
  };
  return one_timed_cell(a) && one_timed_cell(b) && a.round == b.round &&
         results.plan.partner[static_cast<std::size_t>(a.cell_ids[0])] == b.cell_ids[0];
}

class JobQueue {
 public:
  JobQueue(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher, const OrchestratorHooks& hooks)
      : results_(results), launcher_(launcher), hooks_(hooks) {
    for (const auto& job : jobs) {
      total_ += job.cell_ids.size();
      (job.mode == WorkerMode::count && hooks.counting_cpu >= 0 ? counting_lane_ : queue_).push_back(job);
    }
  }

  std::size_t run() {
    {
      std::lock_guard lock(mutex_);
      hooks_.on_update(results_);
    }
    std::exception_ptr lane_error;
    std::jthread lane;
    // Should the timed rounds end in an exception, the lane's destructor asks it to stop
    // after the counting run it is in.
    if (!counting_lane_.empty()) lane = std::jthread([&](std::stop_token stop) {
      try {
        run_counting_lane(stop);
      } catch (...) {
        lane_error = std::current_exception();
      }
    });
    std::unique_ptr<PairInFlight> ahead;  // outside the try: its catch must still see it
    try {
      while ((!queue_.empty() || ahead) && interrupt_signal() == 0) {
        {
          std::lock_guard lock(mutex_);
          hooks_.between_workers(results_);
        }
        std::unique_ptr<PairInFlight> pair = std::move(ahead);
        if (!pair && paced_pair(results_, queue_)) pair = start_pair();
        if (!pair) {
          const Job job = queue_.front();
          queue_.pop_front();
          run_alone(job, queue_);
          continue;
        }
        let_go(*pair);
        // The next pair starts up on abench's CPUs while this one is measured.
        if (starts_ahead(hooks_) && paced_pair(results_, queue_)) ahead = start_pair();
        end_pair(*pair);
      }
      if (ahead) end_pair(*ahead);  // interrupted: it was stopped, as every worker was
    } catch (...) {
      if (ahead) ahead->cancel = true;  // and its threads end before the exception leaves
      throw;
    }
    if (lane.joinable()) lane.join();
    if (lane_error) std::rethrow_exception(lane_error);
    hooks_.between_workers(results_);
    return done_;
  }

 private:
  // Counting runs one at a time on their own CPU while the timed rounds go on. The idle
  // scheduling class, which the workers started here inherit, keeps them from delaying
  // abench's own thread, which paces the timed workers.
  void run_counting_lane(const std::stop_token& stop) {
    sched_param lowest{};
    sched_setscheduler(0, SCHED_IDLE, &lowest);  // this thread's; refused: they run at normal priority
    while (!counting_lane_.empty() && interrupt_signal() == 0 && !stop.stop_requested()) {
      const Job job = counting_lane_.front();
      counting_lane_.pop_front();
      run_alone(job, counting_lane_);
    }
  }

  std::size_t add_worker(const Job& job) {
    results_.workers.push_back({job, std::nullopt, {}, "", false, 0});
    return results_.workers.size() - 1;
  }

  // The cells a failed worker had not reached go first: rounds keep their order.
  void finish(JobRunner& runner, std::size_t index, const LaunchOutcome& outcome, double wall_s,
              std::deque<Job>& queue) {
    results_.workers[index].wall_s = wall_s;
    if (std::vector<int> rest = runner.finish(outcome); !rest.empty()) {
      Job continuation = results_.workers[index].job;
      continuation.cell_ids = std::move(rest);
      continuation.continuation = true;
      queue.push_front(std::move(continuation));
    }
  }

  // One worker; its lines are handled under the queue's lock, as the other lane's are.
  void run_alone(const Job& job, std::deque<Job>& queue) {
    std::optional<JobRunner> runner;
    std::size_t index = 0;
    LaunchRequest request;
    {
      std::lock_guard lock(mutex_);
      index = add_worker(job);
      runner.emplace(results_, index, hooks_, done_, total_);
      request = make_launch_request(results_, job, hooks_);
      hooks_.on_progress(done_, total_, results_.plan.variants[job.variant].label() + " starting");
    }
    const auto start = std::chrono::steady_clock::now();
    const LaunchOutcome outcome = launcher_.run(request, [&](std::string_view line) {
      std::lock_guard lock(mutex_);
      return runner->on_line(line);
    });
    std::lock_guard lock(mutex_);
    finish(*runner, index, outcome, seconds_since(start), queue);
  }

  // Both sides of a paced pair at once, a thread each; their lines are handled one at a
  // time under the queue's lock, so the results and the pacer see one line after another.
  // A pair may start up (on abench's CPUs) while the pair before it is measured: its pacer
  // says nothing until let_go.
  struct PairInFlight {
    std::array<Job, 2> jobs;
    std::unique_ptr<BatchPacer> pacer;
    std::array<std::size_t, 2> index{};
    std::array<std::optional<JobRunner>, 2> runners;
    std::array<LaunchRequest, 2> requests;
    std::array<LaunchOutcome, 2> outcomes;
    std::array<double, 2> wall_s{};
    std::array<std::exception_ptr, 2> errors;
    std::chrono::steady_clock::time_point start;
    std::atomic<bool> cancel = false;
    std::array<std::jthread, 2> sides;  // last: joined first when a pair is destroyed
  };

  std::unique_ptr<PairInFlight> start_pair() {
    auto pair = std::make_unique<PairInFlight>();
    PairInFlight& p = *pair;
    p.jobs = {queue_[0], queue_[1]};
    queue_.pop_front();
    queue_.pop_front();
    std::lock_guard setup(mutex_);
    p.pacer = std::make_unique<BatchPacer>(results_.protocol.samples);
    if (!p.pacer->ready()) throw EnvironmentError(fmt::format("cannot make a pace channel: {}", std::strerror(errno)));
    for (std::size_t side = 0; side < 2; ++side) {
      p.index[side] = add_worker(p.jobs[side]);
      p.runners[side].emplace(results_, p.index[side], hooks_, done_, total_, true);
      p.requests[side] = make_launch_request(results_, p.jobs[side], hooks_, p.pacer->worker_end(static_cast<int>(side)));
      p.requests[side].cancel = &p.cancel;
      p.requests[side].clock_start = [this, &p, side] {
        std::lock_guard lock(mutex_);
        return p.pacer->clock_start(static_cast<int>(side));
      };
    }
    p.start = std::chrono::steady_clock::now();  // let_go moves it to the pair's turn
    for (std::size_t side = 0; side < 2; ++side) p.sides[side] = std::jthread([this, &p, side] { run_side(p, side); });
    return pair;
  }

  void run_side(PairInFlight& p, std::size_t side) {
    try {
      p.outcomes[side] = launcher_.run(p.requests[side], [this, &p, side](std::string_view line) {
        std::lock_guard lock(mutex_);
        const double next = p.runners[side]->on_line(line);
        p.pacer->on_line(static_cast<int>(side), line);
        return next;
      });
    } catch (...) {
      p.errors[side] = std::current_exception();
    }
    std::lock_guard lock(mutex_);
    p.wall_s[side] = seconds_since(p.start);
    p.pacer->on_gone(static_cast<int>(side));
  }

  // The measured CPU is the pair's: the first side warms up (at the count an earlier round
  // of the cell fixed, known only once that round has ended).
  void let_go(PairInFlight& p) {
    std::lock_guard lock(mutex_);
    hooks_.on_progress(done_, total_, results_.plan.variants[p.jobs[0].variant].label() + " and " +
                                          results_.plan.variants[p.jobs[1].variant].label() + " starting");
    p.pacer->let_go(paired_iterations(results_, p.jobs[0].cell_ids[0]));
    p.start = std::chrono::steady_clock::now();  // wall_s: the pair's time on the measured CPU
  }

  void end_pair(PairInFlight& p) {
    for (auto& side : p.sides)
      if (side.joinable()) side.join();
    for (const auto& error : p.errors)
      if (error) std::rethrow_exception(error);
    std::lock_guard lock(mutex_);
    for (std::size_t side = 0; side < 2; ++side)
      finish(*p.runners[side], p.index[side], p.outcomes[side], p.wall_s[side], queue_);
  }

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  RunResults& results_;
  WorkerLauncher& launcher_;
  const OrchestratorHooks& hooks_;
  std::deque<Job> queue_, counting_lane_;
  std::mutex mutex_;  // the results, the workers' records and the counts, between the lanes
  std::size_t done_ = 0, total_ = 0;
};

}  // namespace

std::size_t run_jobs(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher,
                     const OrchestratorHooks& hooks) {
  return JobQueue(results, jobs, launcher, hooks).run();
}

}  // namespace abench
