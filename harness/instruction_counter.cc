#include "harness/instruction_counter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

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

// The "events:" and "summary:"/"totals:" lines of a callgrind output file, read with no
// heap allocation: the allocator under test serves this process too, and the file (its
// name holds the pid, its totals the counts so far) must not change what that allocator
// holds when the next cell is counted (docs/decisions.md, "Nothing on the tested allocator's
// heap").
constexpr std::size_t kMaxEvents = 32;

struct DumpTotals {
  char names[kMaxEvents][32] = {};
  std::uint64_t totals[kMaxEvents] = {};
  std::size_t events = 0, values = 0;
};

void parse_dump_line(const char* line, std::size_t length, DumpTotals& d) {
  auto starts = [&](const char* prefix) {
    const std::size_t n = std::strlen(prefix);
    return length >= n && std::memcmp(line, prefix, n) == 0;
  };
  const bool events = starts("events:"), totals = starts("summary:") || starts("totals:");
  if (!events && !totals) return;
  std::size_t i = static_cast<std::size_t>(static_cast<const char*>(std::memchr(line, ':', length)) - line) + 1;
  if (totals)
    d.values = 0;
  else
    d.events = 0;
  while (i < length) {
    while (i < length && line[i] == ' ') ++i;
    std::size_t end = i;
    while (end < length && line[end] != ' ') ++end;
    if (end > i) {
      if (events && d.events < kMaxEvents) {
        const std::size_t n = std::min<std::size_t>(end - i, sizeof d.names[0] - 1);
        std::memcpy(d.names[d.events], line + i, n);
        d.names[d.events++][n] = '\0';
      } else if (totals && d.values < kMaxEvents) {
        std::uint64_t v = 0;
        for (std::size_t k = i; k < end && line[k] >= '0' && line[k] <= '9'; ++k)
          v = v * 10 + static_cast<std::uint64_t>(line[k] - '0');
        d.totals[d.values++] = v;
      }
    }
    i = end;
  }
}

InstructionCount parse_dump(const char* path) {
  static char buffer[1 << 16];
  static DumpTotals d;
  d = DumpTotals{};
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error(std::string("cannot read the callgrind dump ") + path);
  std::size_t held = 0;
  for (;;) {
    const ssize_t n = read(fd, buffer + held, sizeof buffer - held);
    if (n <= 0) break;
    held += static_cast<std::size_t>(n);
    std::size_t start = 0;
    for (std::size_t i = 0; i < held; ++i)
      if (buffer[i] == '\n') {
        parse_dump_line(buffer + start, i - start, d);
        start = i + 1;
      }
    if (start == 0 && held == sizeof buffer) start = held;  // a line longer than the buffer: not one of ours
    std::memmove(buffer, buffer + start, held - start);
    held -= start;
  }
  close(fd);
  if (held > 0) parse_dump_line(buffer, held, d);
  InstructionCount count;
  // callgrind's event names, each added into the figure it belongs to.
  static constexpr struct {
    const char* event;
    std::uint64_t InstructionCount::*into;
  } kInto[] = {{"Ir", &InstructionCount::instructions},  {"Dr", &InstructionCount::data_reads},
               {"Dw", &InstructionCount::data_writes},   {"D1mr", &InstructionCount::l1_misses},
               {"D1mw", &InstructionCount::l1_misses},   {"DLmr", &InstructionCount::ll_misses},
               {"DLmw", &InstructionCount::ll_misses},   {"Bc", &InstructionCount::branches},
               {"Bi", &InstructionCount::branches},      {"Bcm", &InstructionCount::branch_misses},
               {"Bim", &InstructionCount::branch_misses}};
  for (std::size_t i = 0; i < d.events && i < d.values; ++i)
    for (const auto& e : kInto)
      if (std::strcmp(d.names[i], e.event) == 0) count.*e.into += d.totals[i];
  if (d.events == 0 || d.values == 0)
    throw std::runtime_error(std::string("no event totals in the callgrind dump ") + path);
  return count;
}

}  // namespace

std::string instruction_refusal_reason(const CellSpec& cell, bool touch) {
  if (cell.workload == Workload::xthread)
    return "in instructions mode, the cross-thread workload cannot be measured: callgrind runs one thread "
           "at a time, so the handover between threads is not what it is on hardware";
  if (touch)
    return "in instructions mode, --touch measures first-touch page faults, which callgrind does not count (system "
           "calls and faults "
           "are outside it); measure this cell in time mode";
  const ExpectedBuffer expected = expected_buffer(cell.workload, cell.size);
  const std::size_t largest = std::max(expected.min_capacity, cell.size) + cell.alignment.effective();
  if (largest >= kInstructionModeMaxBytes)
    return "in instructions mode, buffers of " + std::to_string(largest) +
           " bytes or more are served with mmap/munmap system calls, "
           "which callgrind does not count (limit " +
           std::to_string(kInstructionModeMaxBytes) + " bytes); measure this cell in time mode";
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
  char reason[64];  // on the stack, as the path below: nothing here may allocate
  std::snprintf(reason, sizeof reason, "abench-cell-%d", cell_id);
  CALLGRIND_DUMP_STATS_AT(reason);
  ++g_dumps;
  char path[4096];
  std::snprintf(path, sizeof path, "%s/callgrind.%ld.%d", std::getenv("ABENCH_CALLGRIND_DIR"),
                static_cast<long>(getpid()), g_dumps);
  return parse_dump(path);
#else
  (void)region;
  (void)cell_id;
  (void)g_dumps;
  throw std::runtime_error(instruction_counting_unavailable());
#endif
}

}  // namespace abench
