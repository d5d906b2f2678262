// The real WorkerLauncher: posix_spawn with pipes for stdin, stdout and stderr.
#pragma once

#include <vector>

#include "src/run/launcher.h"

namespace abench {

// Restricts abench itself to the allowed CPUs other than `cpu` (the workers' CPU), where
// another is allowed, so that reading worker output and writing results after every cell
// does not compete with the measurement. Workers are still started with the full set, so
// they can pin themselves anywhere. Returns the CPUs abench now uses.
std::vector<int> keep_orchestrator_off_cpu(int cpu);

// Gives abench the full CPU set back, so that the next run of one command (calibrate and
// the gate make several) sees, and pins its workers within, the CPUs it was started with.
void release_orchestrator_cpus();

class ProcessLauncher final : public WorkerLauncher {
 public:
  LaunchOutcome run(const LaunchRequest& request,
                    const ProtocolLineHandler& on_line) override;
};

}  // namespace abench
