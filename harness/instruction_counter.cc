#include "harness/instruction_counter.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "harness/workloads.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define ABENCH_HAVE_CALLGRIND 1
#else
#define ABENCH_HAVE_CALLGRIND 0
#endif

namespace abench {
namespace {

int g_dumps = 0;  // callgrind numbers its dumps 1, 2, ... per process

// The "events:" and "summary:"/"totals:" lines of a callgrind output file.
InstructionCount parse_dump(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the callgrind dump " + path);
  std::vector<std::string> events;
  std::vector<std::uint64_t> totals;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line.substr(line.find(':') + 1));
    if (line.rfind("events:", 0) == 0) {
      for (std::string e; fields >> e;) events.push_back(e);
    } else if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) {
      totals.clear();
      for (std::uint64_t v; fields >> v;) totals.push_back(v);
    }
  }
  InstructionCount count;
  for (std::size_t i = 0; i < events.size() && i < totals.size(); ++i) {
    if (events[i] == "Ir") count.instructions = totals[i];
    if (events[i] == "Dr" || events[i] == "Dw") count.data_accesses += totals[i];
  }
  if (events.empty() || totals.empty()) throw std::runtime_error("no event totals in the callgrind dump " + path);
  return count;
}

}  // namespace

std::string instruction_refusal_reason(const CellSpec& cell, bool touch) {
  if (cell.workload == Workload::xthread)
    return "in instructions mode, the cross-thread workload cannot be measured: callgrind runs one thread "
           "at a time, so the handover between threads is not what it is on hardware";
  if (touch)
    return "in instructions mode, --touch measures first-touch page faults, which callgrind does not count (system calls and faults "
           "are outside it); measure this cell in time mode";
  const ExpectedBuffer expected = expected_buffer(cell.workload, cell.size);
  const std::size_t largest = std::max(expected.min_capacity, cell.size) + cell.alignment.effective();
  if (largest >= kInstructionModeMaxBytes)
    return "in instructions mode, buffers of " + std::to_string(largest) + " bytes or more are served with mmap/munmap system calls, "
           "which callgrind does not count (limit " + std::to_string(kInstructionModeMaxBytes) +
           " bytes); measure this cell in time mode";
  return "";
}

std::string instruction_counting_unavailable() {
#if ABENCH_HAVE_CALLGRIND
  if (!RUNNING_ON_VALGRIND) return "the worker is not running under valgrind --tool=callgrind";
  if (std::getenv("ABENCH_CALLGRIND_DIR") == nullptr) return "ABENCH_CALLGRIND_DIR is not set";
  return "";
#else
  return "this worker was built without valgrind/callgrind.h (apt-get install valgrind, then rebuild)";
#endif
}

InstructionCount count_region(const std::function<void()>& region, int cell_id) {
#if ABENCH_HAVE_CALLGRIND
  CALLGRIND_ZERO_STATS;
  CALLGRIND_TOGGLE_COLLECT;
  region();
  CALLGRIND_TOGGLE_COLLECT;
  const std::string reason = "abench-cell-" + std::to_string(cell_id);
  CALLGRIND_DUMP_STATS_AT(reason.c_str());
  ++g_dumps;
  return parse_dump(std::string(std::getenv("ABENCH_CALLGRIND_DIR")) + "/callgrind." + std::to_string(getpid()) +
                    "." + std::to_string(g_dumps));
#else
  (void)region;
  (void)cell_id;
  (void)g_dumps;
  throw std::runtime_error(instruction_counting_unavailable());
#endif
}

}  // namespace abench
