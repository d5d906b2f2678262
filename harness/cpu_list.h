// The kernel's CPU lists ("0-3,8,10-11": /sys/devices/system/cpu/isolated, a PMU's cpus).
#pragma once

#include <string>
#include <vector>

namespace abench {

// The CPUs a list names, in its order; a part that is not a number or a range is left out.
std::vector<int> parse_cpu_list(const std::string& list);

// Whether a CPU list names `cpu`.
bool cpu_list_holds(const std::string& list, int cpu);

}  // namespace abench
