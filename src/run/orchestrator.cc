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

#include "src/plan/cost.h"
#include "src/util/errors.h"
#include "src/run/batch_pacer.h"
#include "src/run/counting_pause.h"
#include "src/run/job_runner.h"
#include "src/run/launch_request.h"
#include "src/util/interrupt.h"

namespace abench {

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

// A thread of its own for work beside the timed rounds (the counting lane): its exception
// kept for the caller, and the thread asked to stop and joined when the lane is destroyed,
// so nothing it uses can end before it.
class BackgroundLane {
 public:
  BackgroundLane() = default;
  BackgroundLane(const BackgroundLane&) = delete;
  BackgroundLane& operator=(const BackgroundLane&) = delete;
  ~BackgroundLane() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

  template <class Work>
  void start(Work work) {
    thread_ = std::jthread([this, work](std::stop_token stop) {
      try {
        work(stop);
      } catch (...) {
        error_ = std::current_exception();
      }
    });
  }

  void join_and_rethrow() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::exception_ptr error_;
  std::jthread thread_;
};

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
    run_first_counts_side_by_side();
    // Should the timed rounds end in an exception, the lane's destructor asks it to stop
    // after the counting run it is in, and joins it.
    BackgroundLane lane;
    if (!counting_lane_.empty()) lane.start([this](const std::stop_token& stop) { run_counting_lane(stop); });
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
    lane.join_and_rethrow();
    hooks_.between_workers(results_);
    return done_;
  }

 private:
  // Counting runs one at a time on their own CPU while the timed rounds go on, stopped
  // while a timed worker takes its samples and begun only while none does
  // (src/run/counting_pause.h). The idle scheduling class, which the workers started here
  // inherit, keeps them from delaying abench's own thread, which paces the timed workers.
  void run_counting_lane(const std::stop_token& stop) {
    sched_param lowest{};
    sched_setscheduler(0, SCHED_IDLE, &lowest);  // this thread's; refused: they run at normal priority
    while (!counting_lane_.empty() && interrupt_signal() == 0 && !stop.stop_requested()) {
      pause_.wait_until_quiet(stop);
      if (stop.stop_requested()) break;
      const Job job = counting_lane_.front();
      counting_lane_.pop_front();
      run_alone(job, counting_lane_, hooks_.counting_cpu, &pause_);
    }
  }

  // The counting runs at the head of the queue, one a CPU of hooks.counting_first_cpus at a
  // time: nothing is timed until they end, so they need not wait for each other (counting
  // was 1.9 s of a 50 s default run one at a time).
  void run_first_counts_side_by_side() {
    const std::vector<int>& cpus = hooks_.counting_first_cpus;
    std::deque<Job> counts;
    while (!queue_.empty() && queue_.front().mode == WorkerMode::count) {
      counts.push_back(queue_.front());
      queue_.pop_front();
    }
    if (cpus.size() < 2 || counts.size() < 2) {
      queue_.insert(queue_.begin(), counts.begin(), counts.end());
      return;
    }
    // Longest first, so that the lanes end together (two of the default matrix's 48 counting
    // runs take 0.4 s, the rest 10-60 ms).
    const auto expected_s = [this](const Job& job) {
      double s = 0;
      for (int id : job.cell_ids)
        s += expected_counting_seconds(results_.plan.cells[static_cast<std::size_t>(id)].spec, results_.protocol);
      return s;
    };
    std::stable_sort(counts.begin(), counts.end(),
                     [&](const Job& a, const Job& b) { return expected_s(a) > expected_s(b); });
    std::vector<BackgroundLane> lanes(std::min(cpus.size(), counts.size()));
    for (std::size_t i = 0; i < lanes.size(); ++i)
      lanes[i].start([this, &counts, cpu = cpus[i]](const std::stop_token& stop) {
        while (interrupt_signal() == 0 && !stop.stop_requested()) {
          std::optional<Job> job;
          {
            std::lock_guard lock(mutex_);
            if (counts.empty()) return;
            job = counts.front();
            counts.pop_front();
          }
          run_alone(*job, counts, cpu);
        }
      });
    for (BackgroundLane& lane : lanes) lane.join_and_rethrow();
    queue_.insert(queue_.begin(), counts.begin(), counts.end());  // interrupted: what was left
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

  // One worker; its lines are handled under the queue's lock, as the other lane's are. A
  // timed worker's samples stop the counting run beside it; a counting run given `paused`
  // is the one they stop, and its wall_s leaves out the time it was stopped.
  void run_alone(const Job& job, std::deque<Job>& queue, int count_cpu = -1, CountingPause* paused = nullptr) {
    std::optional<JobRunner> runner;
    std::size_t index = 0;
    LaunchRequest request;
    {
      std::lock_guard lock(mutex_);
      index = add_worker(job);
      runner.emplace(results_, index, hooks_, done_, total_);
      request = make_launch_request(results_, job, hooks_, -1, count_cpu);
      hooks_.on_progress(done_, total_, results_.plan.variants[job.variant].label() + " starting");
    }
    if (paused != nullptr) {
      request.on_spawned = [paused](pid_t pid) { paused->counting_started(pid); };
      request.clock_start = [paused] { return paused->clock_start(); };
    }
    const bool timed = job.mode == WorkerMode::time;
    // However the worker ends, it samples no more, or as the counting run it is let go: a
    // counting worker left stopped would hold its lane, and the run, for ever.
    const auto ended = [&] {
      if (timed) pause_.set_sampling(index, false);
      return paused != nullptr ? paused->counting_ended() : 0.0;
    };
    const auto start = std::chrono::steady_clock::now();
    LaunchOutcome outcome;
    try {
      outcome = launcher_.run(request, [&](std::string_view line) {
        std::lock_guard lock(mutex_);
        const double next = runner->on_line(line);
        if (timed) pause_.set_sampling(index, runner->sampling());
        if (paused != nullptr) paused->counting_reported();
        return next;
      });
    } catch (...) {
      ended();
      throw;
    }
    const double stopped_s = ended();
    std::lock_guard lock(mutex_);
    finish(*runner, index, outcome, seconds_since(start) - stopped_s, queue);
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
    std::array<std::jthread, 2> sides;
    // The sides' threads use every member above: they end before any of it does, whatever
    // the order of the members.
    ~PairInFlight() {
      for (auto& side : sides)
        if (side.joinable()) side.join();
    }
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
        pause_.set_sampling(p.index[side], p.runners[side]->sampling());
        return next;
      });
    } catch (...) {
      p.errors[side] = std::current_exception();
    }
    pause_.set_sampling(p.index[side], false);
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
  CountingPause pause_;  // a member: the lanes, locals of run, end before it
  std::size_t done_ = 0, total_ = 0;
};

}  // namespace

std::size_t run_jobs(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher,
                     const OrchestratorHooks& hooks) {
  return JobQueue(results, jobs, launcher, hooks).run();
}

}  // namespace abench
