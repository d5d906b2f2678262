// Counting runs beside the timed rounds (on a CPU of abench's own, src/run/beside_cpus.h)
// never run while a timed worker takes its samples: the counting worker is stopped
// (SIGSTOP) from a timed worker's "warm" line to its cell's report, and continued after;
// a counting run begins only while no timed worker samples. Its work so fills the timed
// workers' start-up, verification and warm-up (which it may slow) and the time between
// them, and never shares the machine with a timed batch (work beside the batches, writing
// results, had made their samples noisier here: src/run/result_saver.h). Before, counting
// ran first, and nothing was timed until it ended (docs/counts.md has the figures).
//
// Signals go through a pidfd opened as the worker is spawned, so that a worker reaped
// meanwhile, its pid taken by another process, is never signalled. A worker is stopped only
// once its first line has come, so after its exec: under qemu-user a spawn returns before
// the child has exec'd, and a copy of abench stopped there held every pipe of abench's open
// (its workers' ends never closed, a paced pair waited until it was killed). Thread-safe: timed
// workers' lines arrive on their threads, the counting lane runs on its own.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <set>
#include <stop_token>

namespace abench {

class CountingPause {
 public:
  using Clock = std::chrono::steady_clock;

  CountingPause() = default;
  CountingPause(const CountingPause&) = delete;
  CountingPause& operator=(const CountingPause&) = delete;
  ~CountingPause();

  // Whether this kernel (or emulator) can: without pidfds, counting runs go first.
  static bool supported();

  // A timed worker (its index in results.workers) began or ended its samples; the counting
  // worker is stopped while any does.
  void set_sampling(std::size_t worker, bool sampling);

  // The counting lane: returns once no timed worker samples (or stop is requested).
  void wait_until_quiet(const std::stop_token& stop);

  // The counting worker, just spawned (nothing can have reaped it). Throws
  // std::system_error where its pidfd cannot be opened.
  void counting_started(pid_t pid);
  // Its first protocol line has come (it has exec'd): from now on it is stopped while a
  // timed worker samples, at once if one does. Later calls change nothing.
  void counting_reported();
  // It has ended (before or after it was reaped): returns the seconds it spent stopped.
  double counting_ended();

  // For the counting worker's allowance (LaunchRequest::clock_start): now while it is
  // stopped, else when it last started or went on.
  Clock::time_point clock_start() const;

 private:
  void signal_counting(int signal_number);  // under mutex_

  mutable std::mutex mutex_;
  std::condition_variable_any quiet_;
  std::set<std::size_t> sampling_;
  int pidfd_ = -1;         // the counting worker's, -1: none
  bool reported_ = false;  // its first line has come
  bool stopped_ = false;
  Clock::time_point resumed_{};
  Clock::duration stopped_for_{};
};

}  // namespace abench
