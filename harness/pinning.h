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

// A CPU for a second thread (xthread's consumer): one the process was allowed before
// pin_to_cpu narrowed it, other than `taken`; -1 when there is none.
int second_cpu(int taken);

// True once pin_to_cpu pinned this worker's main thread.
bool worker_is_pinned();

// Pins the calling thread to `cpu`; "" or the error.
std::string pin_thread(int cpu);

}  // namespace abench
