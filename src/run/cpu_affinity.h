// Where abench itself runs, and the CPU mask its workers start with: abench keeps off the
// CPU its workers measure on, while every worker starts with the whole set abench was given
// (or a request's start_cpus), so that it can pin itself anywhere. One process-wide state:
// the CPUs a process may use are the process's.
#pragma once

#include <sched.h>

#include <vector>

namespace abench {

// Restricts abench itself to the allowed CPUs other than `cpu` (the workers' CPU), where
// another is allowed, so that reading worker output and writing results after every cell
// does not compete with the measurement. Returns the CPUs abench now uses.
std::vector<int> keep_orchestrator_off_cpu(int cpu);

// Gives abench the full CPU set back, so that the next run of one command (calibrate and
// the gate make several) sees, and pins its workers within, the CPUs it was started with.
void release_orchestrator_cpus();

// Children inherit the CPU mask of the moment they are created: all abench may use, or
// `cpus` when not empty, for as long as this lives (the calling thread's own mask after).
class MaskForChild {
 public:
  explicit MaskForChild(const std::vector<int>& cpus);
  ~MaskForChild();
  MaskForChild(const MaskForChild&) = delete;
  MaskForChild& operator=(const MaskForChild&) = delete;

 private:
  bool changed_ = false;
  cpu_set_t before_{};
};

}  // namespace abench
