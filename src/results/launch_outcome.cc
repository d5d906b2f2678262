#include "src/results/launch_outcome.h"

#include <cstring>

#include <fmt/format.h>

namespace abench {

std::string describe(const LaunchOutcome& o) {
  if (!o.started) return "could not start: " + o.start_error;
  if (o.cancelled) return "stopped: started ahead of its turn, which never came";
  if (o.interrupted_by != 0)
    return fmt::format("stopped: abench was interrupted ({})",
                       sigabbrev_np(o.interrupted_by) ? sigabbrev_np(o.interrupted_by) : "?");
  if (o.timed_out) return fmt::format("hung: no report within {:.3g} s, killed", o.timeout_s);
  if (!o.protocol_error.empty()) return "stopped: " + o.protocol_error;
  if (o.signal != 0)
    return fmt::format("killed by signal {} ({})", o.signal, sigabbrev_np(o.signal) ? sigabbrev_np(o.signal) : "?");
  return fmt::format("exit code {}", o.exit_code);
}

}  // namespace abench
