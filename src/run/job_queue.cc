#include "src/run/job_queue.h"

#include <algorithm>

#include "src/plan/cost.h"
#include "src/run/background_lane.h"
#include "src/run/launch_request.h"
#include "src/util/interrupt.h"

namespace abench {

JobQueue::JobQueue(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher,
                   const OrchestratorHooks& hooks)
    : results_(results), launcher_(launcher), hooks_(hooks) {
  for (const auto& job : jobs) {
    total_ += job.cell_ids.size();
    (job.mode == WorkerMode::count && hooks.counting_cpu >= 0 ? counting_lane_ : queue_).push_back(job);
  }
}

std::size_t JobQueue::run() {
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
      if (!pair && paced_pair_next()) pair = start_pair();
      if (!pair) {
        const Job job = queue_.front();
        queue_.pop_front();
        run_alone(job, queue_);
        continue;
      }
      let_go(*pair);
      // The next pair starts up on abench's CPUs while this one is measured.
      if (starts_ahead(hooks_) && paced_pair_next()) ahead = start_pair();
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

// Counting runs one at a time on their own CPU while the timed rounds go on, stopped
// while a timed worker takes its samples and begun only while none does
// (src/run/counting_pause.h), each in the idle scheduling class (LaunchRequest::idle_class).
void JobQueue::run_counting_lane(const std::stop_token& stop) {
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
void JobQueue::run_first_counts_side_by_side() {
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
  // Longest first, so that the lanes end together (docs/decisions.md, "The cost model").
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

std::size_t JobQueue::add_worker(const Job& job) {
  results_.workers.push_back({job, std::nullopt, {}, "", false, 0});
  return results_.workers.size() - 1;
}

// The cells a failed worker had not reached go first: rounds keep their order.
void JobQueue::finish(JobRunner& runner, std::size_t index, const LaunchOutcome& outcome, double wall_s,
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
void JobQueue::run_alone(const Job& job, std::deque<Job>& queue, int count_cpu, CountingPause* paused) {
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
    request.idle_class = true;
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

}  // namespace abench
