// SIGINT and SIGTERM as a request to stop: the handler only records the signal; the
// launcher's wait loop sees it within a poll interval, stops the worker's process group,
// and the command writes what is finished before it exits 128 + the signal.
#pragma once

namespace abench {

void install_interrupt_handlers();
// The signal that asked abench to stop, or 0.
int interrupt_signal();
// Tests only: forget a recorded signal.
void clear_interrupt();

}  // namespace abench
