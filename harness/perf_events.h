// Which events a perf measure counts, and how this machine's kernel is asked for them.
// x86 and most kernels: the generic PERF_TYPE_HARDWARE events. Arm: the PMUv3 PMU that
// covers the CPU the worker runs on, with the architected event numbers; a generic event on
// a big.LITTLE machine goes to one kind of core's PMU only, and counts nothing while the
// worker runs on a core of the other kind.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/protocol.h"

namespace abench {

struct PerfEventSpec {
  const char* name;  // as perf(1) spells it
  std::uint32_t type;
  std::uint64_t config;
};

// The events of a perf measure, generic; the first one is the leader and the cell's metric.
// perf: cycles, instructions, branch-misses. perf-sw: task-clock (ns), page-faults,
// context-switches, which kernels give even where the hypervisor hides the PMU.
std::vector<PerfEventSpec> perf_events_of(Measure measure);

// The kernel's event sources (/sys/bus/event_source/devices), injected so that tests feed
// canned trees: the PMUs' names, and a file of one PMU ("type", "cpus") as its first line.
struct EventSources {
  std::function<std::vector<std::string>()> pmus;
  std::function<std::optional<std::string>(const std::string& pmu, const std::string& file)> read;
};
EventSources kernel_event_sources();

struct PerfEventPlan {
  std::vector<PerfEventSpec> events;  // perf_events_of's order and names
  std::string source;                 // what counts them, for the record
};

// `measure`'s events as the PMU covering `cpu` counts them on `architecture` (uname's
// machine). An Arm PMUv3 PMU ("armv8_*", "armv9_*") whose cpus list holds `cpu`: its type,
// CPU_CYCLES 0x11, INST_RETIRED 0x08, BR_MIS_PRED 0x10. Anything else: the generic events.
PerfEventPlan perf_events_for(Measure measure, int cpu, const std::string& architecture, const EventSources& sources);

// perf_events_for the CPU the calling thread runs on, from the running kernel.
PerfEventPlan perf_events_here(Measure measure);

}  // namespace abench
