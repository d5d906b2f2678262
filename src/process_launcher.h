// The real WorkerLauncher: posix_spawn with pipes for stdin, stdout and stderr.
#pragma once

#include <vector>

#include "src/launcher.h"

namespace abench {

// Restricts abench itself to the allowed CPUs other than `cpu` (the workers' CPU), where
// another is allowed, so that reading worker output and writing results after every cell
// does not compete with the measurement. Workers are still started with the full set, so
// they can pin themselves anywhere. Returns the CPUs abench now uses.
std::vector<int> keep_orchestrator_off_cpu(int cpu);

class ProcessLauncher final : public WorkerLauncher {
 public:
  LaunchOutcome run(const LaunchRequest& request,
                    const std::function<void(std::string_view line)>& on_line) override;
};

}  // namespace abench
