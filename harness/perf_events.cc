#include "harness/perf_events.h"

#include <linux/perf_event.h>
#include <sched.h>
#include <sys/utsname.h>

#include <filesystem>
#include <fstream>

#include "harness/cpu_list.h"

namespace abench {

std::vector<PerfEventSpec> perf_events_of(Measure measure) {
  if (measure == Measure::perf)
    return {{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
            {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
            {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES}};
  if (measure == Measure::perf_software)
    return {{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
            {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
            {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES}};
  return {};
}

namespace {

bool is_pmuv3(const std::string& pmu) { return pmu.rfind("armv8_", 0) == 0 || pmu.rfind("armv9_", 0) == 0; }

// PMUv3's architected common events (Arm ARM, D17.10): what the kernel's own generic map
// for these PMUs asks for.
std::uint64_t pmuv3_event(std::uint64_t generic) {
  switch (generic) {
    case PERF_COUNT_HW_CPU_CYCLES: return 0x11;     // CPU_CYCLES
    case PERF_COUNT_HW_INSTRUCTIONS: return 0x08;   // INST_RETIRED
    case PERF_COUNT_HW_BRANCH_MISSES: return 0x10;  // BR_MIS_PRED
    default: return generic;
  }
}

}  // namespace

PerfEventPlan perf_events_for(Measure measure, int cpu, const std::string& architecture, const EventSources& sources) {
  PerfEventPlan plan{perf_events_of(measure), ""};
  if (plan.events.empty()) return plan;
  if (measure != Measure::perf) {
    plan.source = "kernel software events";
    return plan;
  }
  plan.source = "generic hardware events (PERF_TYPE_HARDWARE)";
  if (architecture != "aarch64" || cpu < 0) return plan;
  for (const std::string& pmu : sources.pmus()) {
    if (!is_pmuv3(pmu)) continue;
    const auto cpus = sources.read(pmu, "cpus");
    const auto type = sources.read(pmu, "type");
    if (!cpus || !type || !cpu_list_holds(*cpus, cpu)) continue;
    std::uint32_t type_number = 0;
    try {
      type_number = static_cast<std::uint32_t>(std::stoul(*type));
    } catch (const std::exception&) {
      continue;
    }
    for (PerfEventSpec& e : plan.events) e = {e.name, type_number, pmuv3_event(e.config)};
    plan.source = pmu + " (PMU type " + std::to_string(type_number) + ", CPU " + std::to_string(cpu) +
                  "): PMUv3 events CPU_CYCLES 0x11, INST_RETIRED 0x08, BR_MIS_PRED 0x10";
    return plan;
  }
  return plan;
}

EventSources kernel_event_sources() {
  static const std::filesystem::path root = "/sys/bus/event_source/devices";
  return {[] {
            std::vector<std::string> names;
            std::error_code ec;
            for (const auto& entry : std::filesystem::directory_iterator(root, ec))
              names.push_back(entry.path().filename().string());
            return names;
          },
          [](const std::string& pmu, const std::string& file) -> std::optional<std::string> {
            std::ifstream in(root / pmu / file);
            std::string line;
            if (!in || !std::getline(in, line)) return std::nullopt;
            return line;
          }};
}

PerfEventPlan perf_events_here(Measure measure) {
  utsname uts{};
  uname(&uts);
  return perf_events_for(measure, sched_getcpu(), uts.machine, kernel_event_sources());
}

}  // namespace abench
