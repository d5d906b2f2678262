// Runs a plan: launches each job's worker, feeds its answers into RunResults as they
// arrive, and turns a worker that crashes, is killed or times out into failures of the
// cells it had not reported, so the rest of the run goes on.
#pragma once

#include <functional>
#include <string>

#include "src/launcher.h"
#include "src/results.h"

namespace abench {

struct OrchestratorHooks {
  // Path of the worker executable for a backend.
  std::function<std::string(const Variant& variant, WorkerMode mode)> worker_path;
  // Instructions mode: valgrind's path, and where callgrind writes its dumps.
  std::string valgrind = "/usr/bin/valgrind";
  std::string callgrind_dir = "/tmp";
  // Called after every change to the results (a cell reported, a worker ended), so the
  // caller can put them on disk before the next cell starts.
  std::function<void(const RunResults&)> on_update = [](const RunResults&) {};
  // Measurements done (cell x process) of total, and what runs now.
  std::function<void(std::size_t done, std::size_t total, const std::string& current)> on_progress =
      [](std::size_t, std::size_t, const std::string&) {};
};

// Instructions mode's setting for jemalloc workers (see make_launch_request).
inline constexpr const char* kDeterministicJemallocConf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";

WorkerRequest make_worker_request(const RunResults& results, const Job& job);
// The worker process for a job: its variant's executable, environment and preload.
LaunchRequest make_launch_request(const RunResults& results, const Job& job, const OrchestratorHooks& hooks);

// Seconds a worker may take for `cells` cells under `protocol` before it is killed.
double worker_timeout_s(const RunProtocol& protocol, std::size_t cells);

void run_plan(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks);

}  // namespace abench
