// Pins the calling thread to one CPU, so a worker is not migrated mid-sample.
#pragma once

#include <string>

namespace abench {

struct PinResult {
  int cpu = -1;       // the CPU now pinned to
  std::string error;  // non-empty: pinning failed
};

// requested_cpu < 0 picks the last CPU this process is allowed to run on.
PinResult pin_to_cpu(int requested_cpu);

// The CPU the calling thread runs on right now (sched_getcpu), -1 if unknown.
int current_cpu();

}  // namespace abench
