// How the orchestrator starts a worker process. An interface so that the orchestration
// (rounds, order, failure handling) is tested with a fake, without timing anything.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace abench {

struct LaunchRequest {
  std::string executable;                                 // run directly, no shell
  std::vector<std::string> arguments;
  std::vector<std::pair<std::string, std::string>> environment;  // added to abench's own
  std::string stdin_text;
  double timeout_s = 600;
};

struct LaunchOutcome {
  bool started = true;    // false: the executable could not be started at all
  int exit_code = -1;     // when it exited normally
  int signal = 0;         // when a signal ended it
  bool timed_out = false; // killed by the orchestrator at the timeout
  std::string stderr_tail;
  std::string start_error;
};

// One-line description: "exit code 3", "killed by signal 11 (SIGSEGV)", ...
std::string describe(const LaunchOutcome& outcome);

class WorkerLauncher {
 public:
  virtual ~WorkerLauncher() = default;
  // Runs the worker to completion, calling on_line for every line it writes on stdout
  // as soon as it arrives.
  virtual LaunchOutcome run(const LaunchRequest& request,
                            const std::function<void(std::string_view line)>& on_line) = 0;
};

}  // namespace abench
