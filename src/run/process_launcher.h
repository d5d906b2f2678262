// The real WorkerLauncher: a process spawned (src/run/worker_spawn.h) and watched until it
// is gone, its allowance kept; where abench runs is src/run/cpu_affinity.h's.
#pragma once

#include "src/run/launcher.h"

namespace abench {

class ProcessLauncher final : public WorkerLauncher {
 public:
  LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) override;
};

}  // namespace abench
