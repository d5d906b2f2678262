// Test helper: a worker launcher that starts no process and times nothing.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <algorithm>
#include <chrono>
#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/run/launcher.h"

namespace abench::testing {

// Answers like a worker: hello, then one cell report per requested cell, each with the
// samples given by `ns_of`. A launch listed in `crash_after` dies (SIGSEGV) after that
// many cells.
class FakeLauncher : public WorkerLauncher {
 public:
  std::vector<std::string> launched;  // executable of each launch, in order
  std::vector<WorkerRequest> requests;
  std::map<std::size_t, std::size_t> crash_after;  // launch index -> cells reported first
  std::function<double(const std::string&, int cell_id)> ns_of = [](const std::string&, int) { return 10.0; };
  std::uint64_t requests_per_buffer = 1;         // what a counting worker reports
  std::string counting_fatal;                    // a counting worker that refuses to run, with this error
  std::chrono::milliseconds count_run_takes{0};  // how long each counting run lasts
  int most_in_flight = 0;                        // the most runs at once, under bookkeeping
  std::mutex bookkeeping;
  // Timed workers: warm_up_takes before a "warm" line (verification and warm-up), then
  // sampling_takes in its samples, then the cell's report.
  std::chrono::milliseconds warm_up_takes{0}, sampling_takes{0};
  // Counting runs: a real child process that sleeps count_run_takes, handed to the request's
  // on_spawned (so that abench can stop it), said hello for, and waited for. Each timed worker
  // looks, early in its samples, whether every such child that has said hello is stopped or
  // has a stop pending (it runs no instruction of its own before it stops), and counts what it
  // finds. A child between its spawn and its hello is a worker starting up, which abench
  // cannot stop before its exec (src/run/counting_pause.h).
  bool counting_children = false;
  int samples_beside_a_running_count = 0, samples_beside_a_stopped_count = 0;

  static CellCounts counts_for(const CellSpec& cell, std::uint64_t requests_per_buffer) {
    CellCounts c;
    c.id = cell.id;
    c.ok = true;
    c.operations = 3 * cell.live;
    c.requests = requests_per_buffer * c.operations;
    c.frees = c.operations;
    c.requests_min = c.requests_max = requests_per_buffer;
    c.expected_requests_min = c.expected_requests_max = 1;
    return c;
  }

  LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) override {
    const auto req = nlohmann::json::parse(request.stdin_text).get<WorkerRequest>();
    std::size_t index = 0;
    {
      std::lock_guard lock(bookkeeping);  // counting runs may be launched from a lane of their own
      index = launched.size();
      launched.push_back(request.executable);
      requests.push_back(req);
      most_in_flight = std::max(most_in_flight, ++in_flight_);
    }
    const bool child = req.mode == WorkerMode::count && counting_children;
    if (child)
      run_counting_child(request, hello_for(request, req, index), on_line);
    else if (req.mode == WorkerMode::count)
      std::this_thread::sleep_for(count_run_takes);
    const LaunchOutcome outcome = report(request, req, index, on_line, child);
    std::lock_guard lock(bookkeeping);
    --in_flight_;
    return outcome;
  }

 private:
  int in_flight_ = 0;
  std::set<pid_t> counting_children_;  // alive and past their hello, under bookkeeping

  void run_counting_child(const LaunchRequest& request, const WorkerHello& hello, const ProtocolLineHandler& on_line) {
    const timespec nap{0, static_cast<long>(std::chrono::nanoseconds(count_run_takes).count())};
    const pid_t pid = fork();
    if (pid == 0) {
      nanosleep(&nap, nullptr);
      _exit(0);
    }
    if (request.on_spawned) request.on_spawned(pid);
    on_line(nlohmann::json(hello).dump());
    {
      std::lock_guard lock(bookkeeping);
      counting_children_.insert(pid);
    }
    waitpid(pid, nullptr, 0);
    std::lock_guard lock(bookkeeping);
    counting_children_.erase(pid);
  }

  // Stopped ('T') or ended ('Z'), or SIGSTOP pending, which it acts on before it runs an instruction of its
  // own: a stopped idle-class process under load may wait long for the CPU to stop on.
  static bool stopped(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    constexpr unsigned long kStopBit = 1ul << (SIGSTOP - 1);
    bool stop = false;
    for (std::string line; std::getline(in, line);) {
      // 'Z': it has ended (its lane has yet to reap it), which is not running either.
      if (line.starts_with("State:\t")) stop |= line.size() > 7 && (line[7] == 'T' || line[7] == 'Z');
      if (line.starts_with("SigPnd:") || line.starts_with("ShdPnd:"))
        stop |= (std::stoul(line.substr(7), nullptr, 16) & kStopBit) != 0;
    }
    return stop;
  }

  // Early in a timed worker's samples: each counting child is stopped (a few reads allow for
  // the moment between the signal's dequeue and the stop), or counted as running beside them.
  void look_at_counting_children() {
    std::set<pid_t> children;
    {
      std::lock_guard lock(bookkeeping);
      children = counting_children_;
    }
    for (pid_t child : children) {
      bool seen_stopped = false;
      for (int i = 0; i < 20 && !seen_stopped; ++i) {
        seen_stopped = stopped(child);
        if (!seen_stopped) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      std::lock_guard lock(bookkeeping);
      if (!counting_children_.contains(child)) continue;  // it ended meanwhile
      ++(seen_stopped ? samples_beside_a_stopped_count : samples_beside_a_running_count);
    }
  }

  static WorkerHello hello_for(const LaunchRequest& request, const WorkerRequest& req, std::size_t index) {
    WorkerHello hello;
    hello.backend = request.executable;
    hello.allocator_version = "1.0";
    hello.pid = 1000 + static_cast<long>(index);
    hello.pinned_cpu = 1;
    for (const auto& c : req.cells) hello.order.push_back(c.id);
    return hello;
  }

  LaunchOutcome report(const LaunchRequest& request, const WorkerRequest& req, std::size_t index,
                       const ProtocolLineHandler& on_line, bool said_hello = false) {
    const WorkerHello hello = hello_for(request, req, index);
    if (req.mode == WorkerMode::count && !counting_fatal.empty()) {
      on_line(nlohmann::json{{"type", "fatal"}, {"error", counting_fatal}}.dump());
      LaunchOutcome refused;
      refused.exit_code = 3;
      return refused;
    }
    if (!said_hello) on_line(nlohmann::json(hello).dump());
    std::size_t reported = 0;
    for (const auto& cell : req.cells) {
      if (req.mode == WorkerMode::count) {
        on_line(nlohmann::json(counts_for(cell, requests_per_buffer)).dump());
        continue;
      }
      if (crash_after.contains(index) && reported == crash_after[index]) {
        LaunchOutcome crashed;
        crashed.signal = 11;
        crashed.stderr_tail = "Segmentation fault in fake allocator\n";
        return crashed;
      }
      if (sampling_takes.count() > 0) {
        std::this_thread::sleep_for(warm_up_takes);
        on_line(nlohmann::json{
            {"type", "warm"}, {"id", cell.id}, {"batch_ns", 1000000}, {"iterations", 100}, {"samples", 3}}
                    .dump());
        const auto start = std::chrono::steady_clock::now();
        look_at_counting_children();
        std::this_thread::sleep_until(start + sampling_takes);
      }
      CellReport r{cell.id, true, "", 100, cell.live, 3, true, {}, {}, {}, {}};
      for (int s = 0; s < req.sampler.samples; ++s)
        r.sample_ns_per_op.push_back(ns_of(request.executable, cell.id) * (1 + 0.1 * s));
      on_line(nlohmann::json(r).dump());
      ++reported;
    }
    on_line(R"({"type":"done"})");
    LaunchOutcome ok;
    ok.exit_code = 0;
    return ok;
  }
};

}  // namespace abench::testing
