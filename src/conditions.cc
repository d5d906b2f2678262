#include "src/conditions.h"

#include <gnu/libc-version.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "build_info.h"
#include "git_revision.h"

namespace abench {
namespace {

nlohmann::json first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return nullptr;
  return line;
}

std::string cpuinfo_field(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  return "";
}

nlohmann::json hypervisor(const std::string& cpuinfo) {
  if (auto type = first_line_of("/sys/hypervisor/type"); !type.is_null()) return type;
  auto vendor = first_line_of("/sys/class/dmi/id/sys_vendor");
  if (cpuinfo_field(cpuinfo, "flags").find(" hypervisor") != std::string::npos)
    return vendor.is_null() ? nlohmann::json("detected (cpuid hypervisor flag)") : vendor;
  return nullptr;
}

nlohmann::json turbo() {
  // intel_pstate says "no_turbo", acpi-cpufreq says "boost": opposite senses.
  if (auto no_turbo = first_line_of("/sys/devices/system/cpu/intel_pstate/no_turbo"); !no_turbo.is_null())
    return no_turbo.get<std::string>() == "0" ? "on" : "off";
  if (auto boost = first_line_of("/sys/devices/system/cpu/cpufreq/boost"); !boost.is_null())
    return boost.get<std::string>() == "1" ? "on" : "off";
  return nullptr;
}

nlohmann::json allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return nullptr;
  nlohmann::json cpus = nlohmann::json::array();
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

}  // namespace

nlohmann::json collect_conditions() {
  std::ifstream cpuinfo_file("/proc/cpuinfo");
  std::stringstream buffer;
  buffer << cpuinfo_file.rdbuf();
  const std::string cpuinfo = buffer.str();

  utsname uts{};
  uname(&uts);
  char host[256] = {};
  gethostname(host, sizeof host - 1);

  const std::string model = cpuinfo_field(cpuinfo, "model name");
  return {
      {"cpu_model", model.empty() ? nlohmann::json(nullptr) : nlohmann::json(model)},
      {"logical_cpus", std::thread::hardware_concurrency()},
      {"allowed_cpus", allowed_cpus()},
      {"memory_bytes", static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) *
                           static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE))},
      {"page_size", sysconf(_SC_PAGESIZE)},
      {"hostname", host},
      {"kernel", std::string(uts.sysname) + " " + uts.release + " " + uts.version},
      {"architecture", uts.machine},
      {"libc", std::string("glibc ") + gnu_get_libc_version()},
      {"frequency_governor", first_line_of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")},
      {"turbo", turbo()},
      {"hypervisor", hypervisor(cpuinfo)},
      {"aslr", first_line_of("/proc/sys/kernel/randomize_va_space")},
      {"abench_version", ABENCH_VERSION},
      {"abench_git_revision", ABENCH_GIT_REVISION},
      {"compiler", ABENCH_COMPILER},
      {"cxx_flags", ABENCH_CXX_FLAGS},
      {"build_type", ABENCH_BUILD_TYPE},
  };
}

}  // namespace abench
