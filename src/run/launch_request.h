// What a worker process is started with: its executable (under callgrind in instructions
// mode), environment and preload, and the request line on its stdin (cells, sampler,
// pinning, pacing).
#pragma once

#include <cstdint>

#include "src/results/results.h"
#include "src/run/launcher.h"
#include "src/run/orchestrator.h"

namespace abench {

WorkerRequest make_worker_request(const RunResults& results, const Job& job);

// The worker process for a job: its variant's executable, environment and preload; with a
// pace descriptor, one of a paced pair (src/run/batch_pacer.h). A counting run goes to
// count_cpu where it is >= 0 (its lane's: hooks.counting_cpu or one of
// hooks.counting_first_cpus), else where a timed worker would.
LaunchRequest make_launch_request(const RunResults& results, const Job& job, const OrchestratorHooks& hooks,
                                  int pace_fd = -1, int count_cpu = -1);

// compare measures both sides of a pair at one iteration count: the count of the first
// process that measured either side (0: none yet, the worker finds its own).
std::uint64_t paired_iterations(const RunResults& results, int id);

// Paced pairs start up beside the measured CPU (the caller decides where that applies).
bool starts_ahead(const OrchestratorHooks& hooks);

}  // namespace abench
