#include "src/machine/conditions.h"

#include <gnu/libc-version.h>
#include <sched.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "harness/build_info.h"
#include "harness/cpu_list.h"
#include "src/machine/cpu_identity.h"
#include "src/machine/virtualization.h"
#include "src/util/fnv1a.h"

namespace abench {
namespace {

nlohmann::json first_line_of(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return nullptr;
  return line;
}

nlohmann::json text_or_null(const std::optional<std::string>& text) {
  return text ? nlohmann::json(*text) : nlohmann::json(nullptr);
}

// Arm: when cpuinfo has no cores (an emulator shows the host's), MIDR_EL1 from sysfs.
std::vector<ArmCore> sysfs_arm_cores(unsigned cpus) {
  std::vector<ArmCore> cores;
  for (unsigned c = 0; c < cpus && c < 1024; ++c)
    if (const auto midr = read_first_line(fmt::format("/sys/devices/system/cpu/cpu{}/regs/identification/midr_el1", c)))
      if (const auto core = core_of_midr(*midr)) cores.push_back(*core);
  return cores;
}

// From sysfs (what the kernel probed), else glibc's sysconf, which is 0 on many Arm systems.
nlohmann::json cache_line_bytes() {
  if (const auto line = read_first_line("/sys/devices/system/cpu/cpu0/cache/index0/coherency_line_size")) try {
      if (const int bytes = std::stoi(*line); bytes > 0) return bytes;
    } catch (const std::exception&) {
    }
  if (const long bytes = sysconf(_SC_LEVEL1_DCACHE_LINESIZE); bytes > 0) return bytes;
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

namespace {

// Identifies the machine (not the run): results measured on different machines are not
// comparable, and the gate says so.
std::string fingerprint(const nlohmann::json& c) {
  // Null where a condition could not be read: part of the fingerprint as "null".
  auto part = [&c](const char* key) { return c.contains(key) ? c[key].dump() : std::string("null"); };
  const std::string text = part("architecture") + "|" + part("cpu_model") + "|" + part("logical_cpus") + "|" +
                           part("memory_bytes") + "|" + part("hostname") + "|" + part("kernel");
  // Not FNV-1a's offset basis (a digit short) since the first fingerprint was stored: kept,
  // so that files and stores of earlier runs still name the same machine.
  const std::uint64_t h = fnv1a(text, 1469598103934665603ull);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// The kernel's DAMON monitors and may act on memory it finds cold ("pageout" reclaims it):
// a worker whose pages it takes back runs slower until they are back. One entry a running
// kdamond: its operations set and its schemes' actions.
nlohmann::json damon_state() {
  nlohmann::json kdamonds = nlohmann::json::array();
  const std::string root = "/sys/kernel/mm/damon/admin/kdamonds/";
  const auto count = first_line_of(root + "nr_kdamonds");
  if (!count.is_string()) return nullptr;
  int n = 0;
  try {
    n = std::stoi(count.get<std::string>());
  } catch (const std::exception&) {
    return nullptr;
  }
  for (int k = 0; k < n && k < 16; ++k) {
    const std::string dir = root + std::to_string(k) + "/";
    nlohmann::json kdamond{{"state", first_line_of(dir + "state")},
                           {"operations", first_line_of(dir + "contexts/0/operations")},
                           {"actions", nlohmann::json::array()}};
    for (int s = 0; s < 16; ++s) {
      const auto action = first_line_of(dir + "contexts/0/schemes/" + std::to_string(s) + "/action");
      if (action.is_null()) break;
      kdamond["actions"].push_back(action);
    }
    kdamonds.push_back(std::move(kdamond));
  }
  return kdamonds;
}

std::vector<int> isolated_cpus() {
  const auto line = first_line_of("/sys/devices/system/cpu/isolated");
  return line.is_string() ? parse_cpu_list(line.get<std::string>()) : std::vector<int>{};
}

}  // namespace

std::vector<std::string> environment_warnings(const nlohmann::json& c, int pinned_cpu, bool workers_randomized) {
  std::vector<std::string> w;
  if (c.contains("emulator") && c["emulator"].is_string())
    w.push_back("emulated: " + c["emulator"].get<std::string>() +
                ": timings measure the emulator, not a CPU; only the counts mean anything here");
  if (!c["hypervisor"].is_null())
    w.push_back("hypervisor: " + c["hypervisor"].get<std::string>() +
                ": neighbours share the host; expect drift between processes and trust ratios measured side by side "
                "(abench compare) over absolute figures, or gate on --measure instructions");
  if (c["frequency_governor"].is_string() && c["frequency_governor"] != "performance")
    w.push_back("frequency governor is '" + c["frequency_governor"].get<std::string>() +
                "', not 'performance': cpupower frequency-set -g performance");
  if (c["turbo"] == "on") w.push_back("turbo is on: the clock follows temperature; disable it for stable figures");
  if (workers_randomized && c["aslr"].is_string() && c["aslr"] != "0")
    w.push_back(
        "ASLR is on (randomize_va_space=" + c["aslr"].get<std::string>() +
        "): addresses, and so padded capacities and cache placement, vary from process to process; "
        "abench's several processes per variant average over it (--layout drawn, the default, turns it off for the "
        "workers)");
  if (pinned_cpu >= 0) {
    const auto isolated = isolated_cpus();
    if (std::find(isolated.begin(), isolated.end(), pinned_cpu) == isolated.end())
      w.push_back("pinned CPU " + std::to_string(pinned_cpu) +
                  " is not isolated (isolcpus=): other tasks may run on it; boot with isolcpus=" +
                  std::to_string(pinned_cpu) + " for a quiet CPU");
  }
  if (c.contains("damon") && c["damon"].is_array())
    for (const auto& k : c["damon"])
      if (k.value("state", nlohmann::json()).is_string() && k["state"] == "on")
        for (const auto& action : k["actions"])
          if (action == "pageout") {
            w.push_back(
                "the kernel's DAMON is on with a 'pageout' scheme: it reclaims memory it finds cold, the "
                "workers' included, so a process can run slower until its pages are back; trust paired "
                "rounds over single figures");
            break;
          }
  double load = 0;
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  if (load > 0.5 * c.value("logical_cpus", 1))
    w.push_back("the machine is busy (load average " + std::to_string(load).substr(0, 4) + " on " +
                std::to_string(c.value("logical_cpus", 1)) + " CPUs): other work competes with the measurement");
  return w;
}

nlohmann::json collect_conditions() {
  std::ifstream cpuinfo_file("/proc/cpuinfo");
  std::stringstream buffer;
  buffer << cpuinfo_file.rdbuf();
  const std::string cpuinfo = buffer.str();

  utsname uts{};
  uname(&uts);
  char host[256] = {};
  gethostname(host, sizeof host - 1);

  CpuIdentity cpu = parse_cpuinfo(cpuinfo);
  const std::string machine = uts.machine;
  const bool arm = architecture_family(machine) == "arm";
  std::vector<ArmCore> cores = cpu.family == "arm" ? cpu.arm_cores : std::vector<ArmCore>{};
  if (arm && cores.empty()) cores = sysfs_arm_cores(std::thread::hardware_concurrency());
  std::string model = cpu.family == architecture_family(machine) ? cpu.model : "";
  if (arm && !cores.empty()) model = arm_model(cores);
  const FirstLineReader read = read_first_line;
  nlohmann::json conditions = {
      {"cpu_model", model.empty() ? nlohmann::json(nullptr) : nlohmann::json(model)},
      // Arm's MIDR fields of the first core (big.LITTLE parts: cpu_model lists every kind).
      {"cpu_implementer",
       cores.empty() ? nlohmann::json(nullptr) : nlohmann::json(fmt::format("{:#04x}", cores[0].implementer))},
      {"cpu_part", cores.empty() ? nlohmann::json(nullptr) : nlohmann::json(fmt::format("{:#05x}", cores[0].part))},
      {"cache_line_bytes", cache_line_bytes()},
      {"logical_cpus", std::thread::hardware_concurrency()},
      {"allowed_cpus", allowed_cpus()},
      {"memory_bytes",
       static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE))},
      {"page_size", sysconf(_SC_PAGESIZE)},
      {"hostname", host},
      {"kernel", std::string(uts.sysname) + " " + uts.release + " " + uts.version},
      {"architecture", machine},
      {"libc", std::string("glibc ") + gnu_get_libc_version()},
      {"frequency_governor", first_line_of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")},
      {"turbo", turbo()},
      {"hypervisor", text_or_null(detect_hypervisor(read, cpu))},
      {"emulator", text_or_null(detect_emulator(read, cpu, machine))},
      {"aslr", first_line_of("/proc/sys/kernel/randomize_va_space")},
      {"damon", damon_state()},
      // What perf_event_open may count for an unprivileged process (--measure perf).
      {"perf_event_paranoid", first_line_of("/proc/sys/kernel/perf_event_paranoid")},
      {"abench_version", build_info().version},
      {"abench_git_revision", build_info().git_revision},
      {"compiler", build_info().compiler},
      {"cxx_flags", build_info().cxx_flags},
      {"build_type", build_info().build_type},
  };
  conditions["machine_fingerprint"] = fingerprint(conditions);
  return conditions;
}

}  // namespace abench
