#include "harness/pinning.h"

#include <sched.h>

#include <cerrno>
#include <cstring>

namespace abench {

namespace {
// What the process could use before the main thread pinned itself.
cpu_set_t g_allowed_before_pinning;
bool g_pinned = false;
int g_pin_later = -1;  // pin_later_to's CPU until move_to_pinned_cpu
}  // namespace

int second_cpu(int taken) {
  cpu_set_t allowed;
  if (g_pinned) {
    allowed = g_allowed_before_pinning;
  } else {
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed) && c != taken) return c;
  return -1;
}

bool worker_is_pinned() { return g_pinned; }

std::string pin_thread(int cpu) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    return "sched_setaffinity(" + std::to_string(cpu) + ") failed: " + std::strerror(errno);
  return "";
}

PinResult pin_to_cpu(int requested_cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return {-1, std::string("sched_getaffinity failed: ") + std::strerror(errno)};
  g_allowed_before_pinning = allowed;
  g_pinned = true;
  int cpu = requested_cpu;
  if (cpu < 0) {
    for (int c = CPU_SETSIZE - 1; c >= 0; --c)
      if (CPU_ISSET(c, &allowed)) {
        cpu = c;
        break;
      }
  }
  if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed)) {
    std::string allowed_list;
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &allowed)) {
        if (!allowed_list.empty()) allowed_list += ',';
        allowed_list += std::to_string(c);
      }
    return {-1, "CPU " + std::to_string(requested_cpu) + " is not one this process may use (allowed: " + allowed_list +
                    ")"};
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (sched_setaffinity(0, sizeof one, &one) != 0)
    return {-1, "sched_setaffinity(" + std::to_string(cpu) + ") failed: " + std::strerror(errno)};
  return {cpu, ""};
}

int current_cpu() { return sched_getcpu(); }

PinResult pin_later_to(int cpu) {
  if (cpu < 0 || cpu >= CPU_SETSIZE) return {-1, "no CPU to pin to later (" + std::to_string(cpu) + ")"};
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return {-1, std::string("sched_getaffinity failed: ") + std::strerror(errno)};
  CPU_SET(cpu, &allowed);
  g_allowed_before_pinning = allowed;
  g_pinned = true;
  g_pin_later = cpu;
  return {cpu, ""};
}

std::string move_to_pinned_cpu() {
  if (g_pin_later < 0) return "";
  const int cpu = g_pin_later;
  g_pin_later = -1;
  return pin_thread(cpu);
}

}  // namespace abench
