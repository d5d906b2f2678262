#include "src/run/cpu_affinity.h"

namespace abench {
namespace {

// Set by keep_orchestrator_off_cpu: the mask workers must start with.
bool g_restricted = false;
cpu_set_t g_full_mask;

}  // namespace

MaskForChild::MaskForChild(const std::vector<int>& cpus) {
  if (cpus.empty() && !g_restricted) return;
  cpu_set_t mask = g_full_mask;
  if (!cpus.empty()) {
    CPU_ZERO(&mask);
    for (int cpu : cpus)
      if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &mask);
  }
  changed_ = sched_getaffinity(0, sizeof before_, &before_) == 0 && sched_setaffinity(0, sizeof mask, &mask) == 0;
}

MaskForChild::~MaskForChild() {
  if (changed_) sched_setaffinity(0, sizeof before_, &before_);
}

void release_orchestrator_cpus() {
  if (!g_restricted) return;
  sched_setaffinity(0, sizeof g_full_mask, &g_full_mask);
  g_restricted = false;
}

std::vector<int> keep_orchestrator_off_cpu(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpus;
  cpu_set_t others = allowed;
  if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_CLR(cpu, &others);
  if (cpu >= 0 && CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof others, &others) == 0) {
    g_full_mask = allowed;
    g_restricted = true;
    allowed = others;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  return cpus;
}

}  // namespace abench
