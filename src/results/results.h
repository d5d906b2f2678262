// The result of a run as plain data: what every process measured, what failed, and the
// conditions. Filled by the orchestrator (or read back by results_reader.h), each cell's
// summary kept current by resummarize(), serialized by the writers in results_*.cc.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/protocol.h"
#include "src/results/launch_outcome.h"
#include "src/results/run_conditions.h"
#include "src/plan/matrix.h"
#include "src/plan/plan.h"
#include "src/stats/layout_spread.h"
#include "src/stats/statistics.h"

namespace abench {

inline constexpr int kResultsSchemaVersion = 1;
// A cell whose slowest process median exceeds its fastest by more than this is unstable.
inline constexpr double kUnstableSpread = 1.5;

// The layout a process was started with (protocol.layout drawn or fixed): the round's draw
// and how many bytes further down it put the stack (src/run/launch_frame.h).
struct ProcessLayout {
  std::uint64_t seed = 0;
  int stack_shift = 0;
  int index = -1;  // --layouts K: which of the K (round mod K); -1 otherwise
  bool operator==(const ProcessLayout&) const = default;
};

struct ProcessMeasurement {
  int round = 0;
  long pid = 0;
  int cpu = -1;
  std::uint64_t seed = 0;
  std::uint64_t iterations = 0;
  int warmup_batches = 0;
  bool warm = true;                              // warm-up ended on its criterion, not at its cap (harness/sampler.h)
  std::vector<std::uint64_t> sample_iterations;  // each sample's stretched count; empty: all `iterations`
  std::vector<double> sample_ns_per_op;          // or instructions per op (Measure::instructions)
  double median_ns_per_op = 0;
  std::optional<double> data_accesses_per_op;                         // instructions mode
  std::map<std::string, std::vector<double>> counter_samples_per_op;  // perf modes: the other events, and ns
  std::optional<ProcessLayout> layout;                                // none: the kernel's
};

// partial: measured by some of its processes, not all (an interrupted run; --resume ends it).
enum class CellStatus { pending, partial, ok, failed, refused };

struct CellSummary {
  CellStatus status = CellStatus::pending;
  std::string error;
  int processes = 0;  // processes that measured the cell
  std::optional<double> ns_per_op, process_min_ns, process_max_ns;
  std::optional<double> best;    // the fastest sample of any process: what allocator reports quote
  std::uint64_t iterations = 0;  // per sample batch (median over processes)
  int samples = 0;               // per process
  bool unstable = false;
  // Below 1 ns per allocating operation the work must have been optimized away.
  bool elision_suspected = false;
  // Counts: "" (not counted), "ok", "unavailable: <why>", or why the requests counted differ from what the
  // workload must make by the growth rule.
  std::string count_check;
  // perf modes: each event beside the leader (and "ns"), median of the process medians
  std::map<std::string, double> counters_per_op;
  // --layouts: how far the process medians move between layouts (none: not measured so)
  std::optional<LayoutSpread> layout;
};

// The margin a run's cells are called layout-sensitive beyond: the interval width its rounds
// aim at (--until-interval, or a compare's --detect under --budget), else compare's default
// --detect (3%). A compare's verdict files use its own --detect.
double layout_margin(const RunProtocol& protocol);

struct CellRecord {
  PlannedCell cell;
  std::optional<CellCounts> counts;  // from the counting run, never from a timed one
  std::vector<ProcessMeasurement> processes;
  std::vector<std::string> failures;  // one per failed process, with the evidence
  std::string refusal;                // the mode cannot measure this cell honestly
  // Why the counting run gave no counts (its worker failed or refused to count): the
  // timing and its verdict stand without them.
  std::string counts_unavailable;
  // The timed rounds (0-based) and the counting run that are done with this cell, measured
  // or failed or refused: what --resume skips.
  std::vector<int> rounds_done;
  bool counting_done = false;
  // Merged results (abench merge): the shard that measured this cell, and on which machine.
  int shard = 0;
  std::string machine_fingerprint;
  // What the measurements above add up to, computed once whenever they change
  // (resummarize): every writer, export, verdict and report reads it, none computes it.
  CellSummary summary;
};

struct WorkerRecord {
  Job job;
  std::optional<WorkerHello> hello;
  LaunchOutcome outcome;
  std::string protocol_error;  // a line that was not valid protocol, a fatal message
  bool finished = false;       // the worker said "done"
  double wall_s = 0;           // from launch to exit
};

// Merged results (abench merge): how they were merged, and from which shards.
struct MergedShard {
  int index = 0;
  std::string directory, run_id, started_at, finished_at, machine_fingerprint;
  nlohmann::json hostname;  // as the shard's conditions say it (null when they do not)
  std::size_t cells = 0;
  double expected_s = 0;
  nlohmann::json conditions;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MergedShard, index, directory, run_id, started_at, finished_at, machine_fingerprint,
                                   hostname, cells, expected_s, conditions)

struct MergeInfo {
  std::vector<std::string> command_line;
  std::vector<MergedShard> shards;
  std::size_t machines = 0;
  std::string merged_at;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(MergeInfo, command_line, shards, machines, merged_at)

struct RunResults {
  Matrix matrix;
  Plan plan;
  RunProtocol protocol;  // as run (seed filled in)
  RunConditions conditions;
  std::vector<std::string> command_line;
  std::string started_at, finished_at;
  std::string run_id;             // unique per run: only cells of one run are paired round by round
  std::vector<CellRecord> cells;  // indexed by cell id
  std::vector<WorkerRecord> workers;
  nlohmann::json earlier_workers = nlohmann::json::array();  // a resumed or merged run's, as stored
  // How the workers of a run read back sized their batches (protocol.batch, as stored): a
  // file written by an older build says what that build did, never what this one does.
  // Null for a run of this build (results_json.cc, batch_rules_json).
  nlohmann::json stored_batch_rules;
  // What the workers of each variant said at start-up where none of them ran in this
  // process (merged results): read back from the stored variants. Indexed by variant.
  std::vector<std::optional<WorkerHello>> stored_hellos;
  std::optional<MergeInfo> merge;  // merged results only
  bool complete = false;
  int interrupted_by = 0;  // the signal that stopped the run, 0 if none
};

// The smallest ns per operation a workload that allocates can honestly take.
inline constexpr double kMinPlausibleNsPerAllocatingOp = 1.0;

// The names of the measured figure in files and tables, by what was measured.
struct MetricNames {
  const char* per_op;       // "ns_per_op" or "instructions_per_op"
  const char* process_min;  // "process_min_ns" ...
  const char* process_max;
  const char* process_median;
  const char* best;
  const char* samples;
  const char* column;  // table heading
};
const MetricNames& metric_names(Measure measure);

CellSummary summarize(const CellRecord& record, int expected_processes, Measure measure = Measure::time);

// Brings cell.summary up to date after its measurements changed: the one place (with
// resummarize_all) that summarizes outside this model.
void resummarize(CellRecord& cell, const RunProtocol& protocol);
void resummarize_all(RunResults& results);
std::string_view name_of(CellStatus status);

// "baseline" or "candidate" for a cell of a compare's run (variants alternate), "" otherwise.
std::string side_of(const RunResults& results, const CellRecord& cell);

// What `from` measured (processes, failures, refusal, counts, rounds done) laid into `into`,
// a cell of the same work in another plan (a resumed run's, a merge's).
void take_measurements(CellRecord& into, const CellRecord& from);

// Each process's samples, as the statistics read them.
ProcessSamples samples_of(const CellRecord& cell);

// What a cell is, across files: "backend/policy/workload/size/R:P/live" (gate files, noise
// floors and thresholds name cells by it).
std::string cell_key(const RunResults& results, const CellRecord& cell);

// Allocator version, malloc object and entry functions reported by the first timed worker
// of each variant (a counting worker where none was timed).
const WorkerHello* hello_of_variant(const RunResults& results, std::size_t variant);

// A timed loop (harness/timed_loop.h) as messages name it: "timed loop 0123456789abcdef", or
// what a worker that named none was.
std::string timed_loop_phrase(std::string_view identity);
// Whether text is what a worker names a timed loop by (16 lowercase hex digits), or empty: what
// files may hold where one is read back.
bool is_timed_loop_or_empty(std::string_view text);

// What results.json keeps of a variant's worker hello, under which name: written by
// results_to_json, read back by --resume and merge (src/run/resume.h).
struct StoredHelloField {
  const char* key;
  std::string WorkerHello::*member;
  bool written_when_empty = true;  // false: a field files gained later, absent where a worker had none
};
inline constexpr StoredHelloField kStoredHelloFields[] = {{"allocator_version", &WorkerHello::allocator_version},
                                                          {"malloc_object", &WorkerHello::malloc_object},
                                                          {"worker_compiler", &WorkerHello::compiler},
                                                          {"worker_cxx_flags", &WorkerHello::cxx_flags},
                                                          {"worker_git_revision", &WorkerHello::git_revision},
                                                          {"timed_loop", &WorkerHello::timed_loop, false},
                                                          {"subject", &WorkerHello::subject},
                                                          {"entry_set", &WorkerHello::entry_set},
                                                          {"entry_calls", &WorkerHello::entry_calls}};
// A hello's stored fields into a variant's JSON (results.json, the history store's runs).
void put_stored_hello(nlohmann::json& variant, const WorkerHello& hello);

}  // namespace abench
