// The worker protocol (docs/protocol.md), version 2: JSON lines.
//
// The orchestrator starts `abench-worker-<backend>` with no arguments and writes one
// WorkerRequest line on its stdin. The worker answers on the descriptor named in
// ABENCH_PROTOCOL_FD (3; stdout when run by hand), one JSON object a line:
//   {"type":"hello", ...}   who serves malloc, allocator version, pinned CPU, cell order
//   {"type":"warm", "id", "batch_ns", "samples"}   a timed cell's warm-up fixed its batch
//   {"type":"cell", ...}    one per cell, as soon as that cell is done
//   {"type":"done"}         the worker finished every cell
//   {"type":"fatal", "error": "..."}   the worker cannot run (exit code 3)
// Its stdout and stderr (a plugin's printf, diagnostics) are kept for failure reports.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/layout.h"
#include "harness/sampler.h"

namespace abench {

inline constexpr int kProtocolVersion = 4;  // 2: reports on their own descriptor, "warm"; 3: paced pairs;
                                            // 4: pinned at the first word

// A cell report whose error starts with this was refused (this mode or this machine
// cannot measure it honestly), not failed.
inline constexpr std::string_view kRefusedPrefix = "not measurable here: ";

struct CellSpec {
  int id = 0;
  Workload workload = Workload::allocate;
  Policy policy = Policy::exact;
  std::size_t size = 0;
  Alignment alignment;
  std::size_t live = 1;
  std::uint64_t fixed_iterations = 0;  // > 0: measure at this count (compare's pairs)
};

enum class CellOrder { shuffled, matrix };

// time: the timed protocol (abench-worker-*). count: the instrumented counting run
// (abench-counter-*), never timed.
enum class WorkerMode { time, count };

// What a timed worker measures: wall time; instructions under callgrind; or perf event
// counters around every timed batch, hardware (perf) or software (perf-sw).
enum class Measure { time, instructions, perf, perf_software };

// One row a measure: what differs between measures is its row's, read where a measure decides
// something (never a comparison with one measure elsewhere).
struct MeasureRow {
  Measure measure;
  std::string_view name;  // in matrices, options and files
  std::string_view what;  // the --measure help and `abench list`
  // Repeats exactly: one sample a process, a fixed seed, no rounds added to narrow it, stored
  // figures as good as fresh ones (no side-by-side gate), the gate's instruction threshold.
  bool exact;
  // Wall time: pairs started ahead of their turn, the elision check, objects per second, a
  // budget's shorter batches.
  bool wall_clock;
  bool perf_events;  // counters opened with perf_event_open around every batch (harness/perf_events.h)
  bool callgrind;    // the worker runs under valgrind's callgrind: slow to start, ~50x slower
  bool holds_times;  // a time, which Google Benchmark's benchmark.json can hold (its time_unit)
  // Its figure per operation in bencher.json and Go's text, metric and unit; "" for both: the
  // leading perf event's.
  std::string_view metric, unit;
  std::string_view unavailable_hint;  // what to do where perf_unavailable says no
};
inline constexpr std::array<MeasureRow, 4> kMeasures{{
    {Measure::time, "time", "wall time per operation (the default)", false, true, false, false, true, "latency",
     "ns/op", ""},
    {Measure::instructions, "instructions", "instructions and data accesses under callgrind: deterministic", true,
     false, false, true, false, "instructions", "instr/op", ""},
    {Measure::perf, "perf", "hardware counters: cycles, instructions, branch-misses", false, false, true, false, true,
     "", "", "Use --measure instructions (callgrind) for deterministic figures, or perf-sw for the software counters"},
    {Measure::perf_software, "perf-sw", "software counters: task-clock, page-faults, context-switches", false, false,
     true, false, true, "", "", "Check /proc/sys/kernel/perf_event_paranoid"},
}};
static_assert(
    [] {
      for (std::size_t i = 0; i < kMeasures.size(); ++i)
        if (static_cast<std::size_t>(kMeasures[i].measure) != i) return false;
      return true;
    }(),
    "kMeasures: one row a measure, in the enum's order");
inline const MeasureRow& row_of(Measure m) { return kMeasures[static_cast<std::size_t>(m)]; }
const char* name_of(Measure measure);  // the row's name
std::string measure_names();           // "time, instructions, perf, perf-sw", for error messages
bool measure_named(std::string_view name, Measure& measure);

struct WorkerRequest {
  int protocol = kProtocolVersion;
  WorkerMode mode = WorkerMode::time;
  std::vector<CellSpec> cells;
  SamplerConfig sampler;
  bool touch = false;
  bool pin = true;
  int cpu = -1;  // -1: the last CPU the process may use
  CellOrder order = CellOrder::shuffled;
  std::uint64_t seed = 0;
  std::string plugin;  // shared object with the subject under test ("" none)
  Measure measure = Measure::time;
  std::string entry_set;  // the backend's entry-point set (allocators/entry_sets.h); "" its default
  // One of a paced pair: waits for abench's word on kPaceFd before its warm-up and before
  // each sample (docs/protocol.md, "Paced pairs").
  bool paced = false;
  // A paced worker started on abench's own CPUs while the pair before it is measured: it
  // moves to `cpu` (then explicit) at its first word, not at start-up.
  bool pin_when_told = false;
};

// An allocator function the cells call, where this process found it.
struct EntryFunction {
  std::string name;                // the symbol the harness calls (mi_malloc)
  std::string object;              // the file that serves it, resolved
  std::uint64_t address = 0;       // in this process
  std::uint64_t file_address = 0;  // in the file (its symbol's value)
  std::uint64_t size = 0;          // bytes of code (its symbol's size; 0: unknown)
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(EntryFunction, name, object, address, file_address, size)

struct WorkerHello {
  std::string backend;
  std::string allocator_version;
  std::string malloc_object;
  int pinned_cpu = -1;  // -1: not pinned
  long pid = 0;
  std::vector<int> order;  // cell ids in the order they will run
  std::string compiler;
  std::string cxx_flags;
  std::string git_revision;
  std::string timed_loop;                      // harness/timed_loop.h ("" from a worker built before it)
  std::string subject;                         // "built-in buffer model", or the plugin's name, version and kind
  std::string entry_set;                       // the entry-point set the cells call ("" before a request: --self-check)
  std::string entry_calls;                     // what that set calls for each operation
  std::string perf_events;                     // perf measures: which PMU counts the events, and how asked
  std::vector<EntryFunction> entry_functions;  // harness/entry_functions.h
};

struct CellReport {
  int id = 0;
  bool ok = false;
  std::string error;             // when !ok
  std::uint64_t iterations = 0;  // per sample batch
  std::uint64_t ops_per_iteration = 0;
  int warmup_batches = 0;
  bool warm = true;                              // warm-up ended on its criterion (harness/sampler.h), not at its cap
  std::vector<std::uint64_t> sample_iterations;  // each sample's stretched count (timed modes)
  std::vector<double> sample_ns_per_op;          // in instructions mode: instructions per op
  std::optional<double> data_accesses_per_op;    // instructions mode only
  // perf modes: every event but the leader, per sample, and "ns" (the batch's wall time)
  std::map<std::string, std::vector<double>> counter_samples_per_op;
  int cpu = -1;  // the CPU its last sample ran on (sched_getcpu); -1: unknown
};

// What one counting run saw for a cell. Per lifetime = per buffer built and dropped.
struct CellCounts {
  int id = 0;
  bool ok = false;
  std::string error;
  std::uint64_t operations = 0;                                        // buffer lifetimes counted
  std::uint64_t requests = 0, frees = 0, requested_bytes = 0;          // totals over all operations
  std::uint64_t requests_min = 0, requests_max = 0;                    // per lifetime
  std::uint64_t expected_requests_min = 0, expected_requests_max = 0;  // by the growth rule
  std::uint64_t final_request_bytes_min = 0, final_request_bytes_max = 0;
  std::uint64_t usable_bytes_min = 0, usable_bytes_max = 0;                // buffer capacity
  std::uint64_t block_usable_bytes_min = 0, block_usable_bytes_max = 0;    // allocator's word
  std::uint64_t fragmentation_bytes_min = 0, fragmentation_bytes_max = 0;  // block usable - request
  std::uint64_t peak_live_bytes = 0;  // most requested bytes live at once in one iteration
  std::uint64_t peak_rss_bytes = 0, minor_faults = 0;
  bool allocator_resident_available = false;
  std::uint64_t allocator_resident_bytes = 0;
  std::string allocator_resident_source;
  bool live_tracking_overflow = false;
  // The built-in buffer model, whose requests the growth rule predicts; false for a
  // plugin's own buffer, for which only "at least one request" is checked.
  bool builtin_buffer = true;
};

inline constexpr std::uint64_t kAnyNumberOfRequests = ~std::uint64_t{0};

void to_json(nlohmann::json& j, const CellCounts& c);
void from_json(const nlohmann::json& j, CellCounts& c);
void to_json(nlohmann::json& j, const Alignment& a);
void from_json(const nlohmann::json& j, Alignment& a);
void to_json(nlohmann::json& j, const CellSpec& c);
void from_json(const nlohmann::json& j, CellSpec& c);
void to_json(nlohmann::json& j, const WorkerRequest& r);
void from_json(const nlohmann::json& j, WorkerRequest& r);
void to_json(nlohmann::json& j, const WorkerHello& h);
void from_json(const nlohmann::json& j, WorkerHello& h);
void to_json(nlohmann::json& j, const CellReport& r);
void from_json(const nlohmann::json& j, CellReport& r);

}  // namespace abench
