// How a worker process ended, as the launcher saw it: part of every worker's record in
// results.json (workers[].outcome) and of the blame a failed cell carries.
#pragma once

#include <string>

namespace abench {

struct LaunchOutcome {
  bool started = true;                   // false: the executable could not be started at all
  int exit_code = -1;                    // when it exited normally
  int signal = 0;                        // when a signal ended it
  bool timed_out = false;                // killed by the orchestrator: no protocol line within timeout_s
  double timeout_s = 0;                  // the allowance it exceeded
  int interrupted_by = 0;                // abench was asked to stop (SIGINT, SIGTERM): stopped, not failed
  bool cancelled = false;                // stopped through LaunchRequest::cancel
  std::string protocol_error;            // the launcher stopped it for breaking the protocol's framing
  std::string stdout_tail, stderr_tail;  // printable (src/util/text.h)
  std::string start_error;
};

// One-line description: "exit code 3", "killed by signal 11 (SIGSEGV)", ...
std::string describe(const LaunchOutcome& outcome);

}  // namespace abench
