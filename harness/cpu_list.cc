#include "harness/cpu_list.h"

#include <algorithm>
#include <sstream>

namespace abench {

std::vector<int> parse_cpu_list(const std::string& list) {
  // No machine has more CPUs than this: a range past it is not a CPU list.
  constexpr int kMaxCpus = 1 << 16;
  std::vector<int> cpus;
  std::stringstream in(list);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    try {
      const int lo = std::stoi(part.substr(0, dash));
      const int hi = dash == std::string::npos ? lo : std::stoi(part.substr(dash + 1));
      if (lo < 0 || hi < lo || hi >= kMaxCpus) continue;
      for (int c = lo; c <= hi; ++c) cpus.push_back(c);
    } catch (const std::exception&) {
    }
  }
  return cpus;
}

bool cpu_list_holds(const std::string& list, int cpu) {
  const std::vector<int> cpus = parse_cpu_list(list);
  return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
}

}  // namespace abench
