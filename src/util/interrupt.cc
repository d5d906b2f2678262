#include "src/util/interrupt.h"

#include <signal.h>

#include <csignal>

namespace abench {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void record(int signal_number) { g_signal = signal_number; }

}  // namespace

void install_interrupt_handlers() {
  struct sigaction action {};
  action.sa_handler = record;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking poll returns EINTR at once
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

int interrupt_signal() { return g_signal; }

void clear_interrupt() { g_signal = 0; }

}  // namespace abench
