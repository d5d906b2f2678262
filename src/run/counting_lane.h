// Where counting runs go with --counts-beside. A counting run times nothing (it counts
// requests, bytes, RSS and page faults under the counting allocator), so it need not wait for
// the measured CPU: it can run beside the timed workers on a CPU of abench's own. Not on the
// measured CPU, nor on an SMT sibling of it (the two share a core's pipeline and caches, so a
// counting run there would slow the timed batches); where no such CPU is allowed, or workers
// are not pinned, counting runs go first, one at a time. Not the default: a VM does not say
// which of its CPUs share a core on the host, and work beside the timed batches made their
// samples noisier here (src/run/result_saver.h); counting was 0.6-0.8 s of a 135 s default run.
#pragma once

#include <string>
#include <vector>

namespace abench {

// The CPU for counting runs, or -1: the last of abench's own CPUs (every allowed CPU but the
// measured one) that is not an SMT sibling of measured_cpu, by sysfs_cpu_dir's
// cpuN/topology/thread_siblings_list.
int counting_lane_cpu(int measured_cpu, const std::vector<int>& own_cpus,
                      const std::string& sysfs_cpu_dir = "/sys/devices/system/cpu");

}  // namespace abench
