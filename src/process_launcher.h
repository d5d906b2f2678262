// The real WorkerLauncher: posix_spawn with pipes for stdin, stdout and stderr.
#pragma once

#include "src/launcher.h"

namespace abench {

class ProcessLauncher final : public WorkerLauncher {
 public:
  LaunchOutcome run(const LaunchRequest& request,
                    const std::function<void(std::string_view line)>& on_line) override;
};

}  // namespace abench
