#include "src/run/counting_lane.h"

#include <fstream>
#include <iterator>

#include "harness/cpu_list.h"

namespace abench {

int counting_lane_cpu(int measured_cpu, const std::vector<int>& own_cpus, const std::string& sysfs_cpu_dir) {
  if (measured_cpu < 0) return -1;
  std::ifstream file(sysfs_cpu_dir + "/cpu" + std::to_string(measured_cpu) + "/topology/thread_siblings_list");
  const std::string siblings((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  for (auto cpu = own_cpus.rbegin(); cpu != own_cpus.rend(); ++cpu)
    if (*cpu != measured_cpu && !cpu_list_holds(siblings, *cpu)) return *cpu;
  return -1;
}

}  // namespace abench
