// The job queue behind run_jobs (src/run/orchestrator.h): the timed jobs one worker (or one
// paced pair) at a time on the measured CPU, the counting runs first or in a lane beside,
// every worker's lines fed into the results under one lock. Private to src/run/.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <thread>
#include <vector>

#include "src/results/results.h"
#include "src/run/batch_pacer.h"
#include "src/run/counting_pause.h"
#include "src/run/job_runner.h"
#include "src/run/launcher.h"
#include "src/run/orchestrator.h"

namespace abench {

class JobQueue {
 public:
  JobQueue(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher, const OrchestratorHooks& hooks);
  // Runs every job; returns the cells reported or failed.
  std::size_t run();

 private:
  // Both sides of a paced pair at once, a thread each (src/run/paced_pairs.cc).
  struct PairInFlight;

  // job_queue.cc: the queue, the counting lanes, one worker at a time.
  void run_counting_lane(const std::stop_token& stop);
  void run_first_counts_side_by_side();
  std::size_t add_worker(const Job& job);
  void finish(JobRunner& runner, std::size_t index, const LaunchOutcome& outcome, double wall_s,
              std::deque<Job>& queue);
  void run_alone(const Job& job, std::deque<Job>& queue, int count_cpu = -1, CountingPause* paused = nullptr);

  // paced_pairs.cc
  bool paced_pair_next() const;
  std::unique_ptr<PairInFlight> start_pair();
  void run_side(PairInFlight& p, std::size_t side);
  void let_go(PairInFlight& p);
  void end_pair(PairInFlight& p);

  static double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  RunResults& results_;
  WorkerLauncher& launcher_;
  const OrchestratorHooks& hooks_;
  std::deque<Job> queue_, counting_lane_;
  std::mutex mutex_;     // the results, the workers' records and the counts, between the lanes
  CountingPause pause_;  // a member: the lanes, locals of run, end before it
  std::size_t done_ = 0, total_ = 0;
};

// A pair may start up (on abench's CPUs) while the pair before it is measured: its pacer
// says nothing until let_go. Their lines are handled one at a time under the queue's lock,
// so the results and the pacer see one line after another.
struct JobQueue::PairInFlight {
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

}  // namespace abench
