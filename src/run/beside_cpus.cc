#include "src/run/beside_cpus.h"

#include <fstream>
#include <iterator>

#include "harness/cpu_list.h"

namespace abench {

std::vector<int> beside_cpus(int measured_cpu, const std::vector<int>& own_cpus, const std::string& sysfs_cpu_dir) {
  std::vector<int> beside;
  if (measured_cpu < 0) return beside;
  std::ifstream file(sysfs_cpu_dir + "/cpu" + std::to_string(measured_cpu) + "/topology/thread_siblings_list");
  const std::string siblings((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  for (int cpu : own_cpus)
    if (cpu != measured_cpu && !cpu_list_holds(siblings, cpu)) beside.push_back(cpu);
  return beside;
}

int counting_lane_cpu(int measured_cpu, const std::vector<int>& own_cpus, const std::string& sysfs_cpu_dir) {
  const std::vector<int> beside = beside_cpus(measured_cpu, own_cpus, sysfs_cpu_dir);
  return beside.empty() ? -1 : beside.back();
}

}  // namespace abench
