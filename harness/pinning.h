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

// A paced worker abench started on its own CPUs, beside the pair measured before it
// (docs/protocol.md, "Paced pairs"): records `cpu` as the one it will be pinned to, and the
// CPUs it may use as its present ones and `cpu`, without moving; move_to_pinned_cpu moves
// it at its first word.
PinResult pin_later_to(int cpu);
// The move pin_later_to put off; "" or the error. Nothing to do when there is none.
std::string move_to_pinned_cpu();

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
