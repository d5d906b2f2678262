// CPUs for work beside the timed batches: counting runs (src/run/counting_pause.h) and the
// start-up of paced workers started ahead of their turn (docs/protocol.md, "Started ahead").
// Never the measured CPU, nor an SMT sibling of it (the two share a core's pipeline and
// caches, so work there would slow the timed batches); where no such CPU is allowed, or
// workers are not pinned, there is none and that work waits its turn on the measured CPU.
//
// A counting run beside is stopped while a timed worker samples (src/run/counting_pause.h):
// a VM does not say which of its CPUs share a core on the host, and work beside the timed
// batches made their samples noisier here (src/run/result_saver.h).
#pragma once

#include <string>
#include <vector>

namespace abench {

// abench's own CPUs (every allowed CPU but the measured one) that are not measured_cpu's SMT
// siblings by sysfs_cpu_dir's cpuN/topology/thread_siblings_list, in own_cpus' order; none
// when measured_cpu < 0 (not pinned).
std::vector<int> beside_cpus(int measured_cpu, const std::vector<int>& own_cpus,
                             const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");

// The CPU for counting runs: the last of beside_cpus, or -1.
int counting_lane_cpu(int measured_cpu, const std::vector<int>& own_cpus,
                      const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");

}  // namespace abench
