// Matrix files (docs/matrix.md): the axes of a run and its protocol, parsed and validated
// before anything runs. Every error names the file, the field and what is allowed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/layout.h"
#include "harness/protocol.h"
#include "src/util/json_file.h"  // read_json_file, for the readers that include this

namespace abench {

// Where a worker's stack, heap and code lie (docs/measurement.md, "The same frame for both
// sides"). drawn: address randomisation off for the workers and one layout drawn per round,
// the same for both sides of a pair; fixed: one layout for every process; kernel: the
// kernel's randomisation, a layout of its own for every process (abench before --layout).
enum class LayoutMode { kernel, drawn, fixed };

struct RunProtocol {
  Measure measure = Measure::time;
  double min_batch_ms = 25;
  int samples = 11;
  int processes = 3;
  CellOrder order = CellOrder::shuffled;
  bool fresh_process_per_cell = false;
  // compare's --interleave batch: a cell's two sides alive at once, alternating batch by
  // batch (src/run/batch_pacer.h). Implies fresh_process_per_cell.
  bool interleave_batches = false;
  // --context: each cell both in the matrix's processes (one a round over every cell) and in
  // fresh processes of its own (src/plan/plan.h, make_context_plan). results.json's
  // process_mode "context".
  bool context = false;
  bool touch = false;
  bool counts = true;         // instrumented counting runs beside the timings
  bool counts_beside = true;  // counting runs beside the timed rounds on another CPU, stopped while one samples
                              // (src/run/counting_pause.h)
  bool start_ahead = true;    // paced pairs start up beside the measured CPU, ahead of their turn
  bool pin = true;
  int cpu = -1;                 // -1: the last CPU the process may use
  double worker_timeout_s = 0;  // 0: derived from the number of cells
  std::uint64_t seed = 0;       // 0: drawn from the clock, then recorded; also draws the layouts
  LayoutMode layout = LayoutMode::drawn;
  // --layouts K (0: off): K layouts reused round after round (round r takes layout r mod K,
  // its stack shift and its own copy of each variant's files), so that each cell's figure can
  // be compared between layouts within one side (src/stats/layout_spread.h).
  int layouts = 0;
  // --until-interval: after `processes` rounds, more rounds for the cells whose interval is
  // still wider than this (a fraction; 0: off), each cell at most max_rounds rounds
  // (src/run/adaptive_rounds.h). The interval is at interval_confidence.
  double until_interval = 0;
  int max_rounds = 0;
  double interval_confidence = 0.95;
  // --budget: seconds the measurement may take; adaptive rounds go only to the cells
  // expected to narrow to until_interval in the time left (0: no budget).
  double budget_s = 0;
};

struct Matrix {
  std::string name;
  std::string path;
  std::string description;
  std::vector<std::string> backends;
  std::vector<Policy> policies;
  std::vector<Workload> workloads;
  std::vector<std::size_t> sizes;
  std::vector<Alignment> alignments;
  std::vector<std::size_t> lives;
  // The entry-point set every backend's calls come from (allocators/entry_sets.h); "" each
  // backend's default. A variant's own entry= wins.
  std::string entry_set;
  RunProtocol protocol;
};

// Every backend abench knows, and the ones this build has a worker for.
const std::vector<std::string>& known_backends();

// The abench checkout: matrices/ and the default results/ live there.
std::string source_directory();
// Where the shipped matrices live, and their names (sorted).
std::string matrices_directory();
std::vector<std::string> available_matrices();

// "default" -> <source>/matrices/default.json; a path (with '/' or ".json") as given.
std::string resolve_matrix_path(const std::string& name_or_path);

// Reads, parses and validates. Throws UsageError.
// backends_replaced: the command line's --backend replaces the file's backends, which then
// need only be known names.
Matrix load_matrix(const std::string& name_or_path, const std::vector<std::string>& built_backends,
                   bool backends_replaced = false);

// Parses one value of an axis as a matrix or the command line spells it; `where` names
// the field or option in error messages. Throw UsageError.
std::size_t parse_size(const nlohmann::json& value, const std::string& where);
Alignment parse_alignment(const nlohmann::json& value, const std::string& where);
Alignment parse_alignment_text(const std::string& text, const std::string& where);
std::size_t parse_live(const nlohmann::json& value, const std::string& where);
Policy parse_policy(const std::string& name, const std::string& where);
Workload parse_workload(const std::string& name, const std::string& where);
// A name of allocators/entry_sets.h ("portable", "native", "rust").
std::string parse_entry_set(const std::string& name, const std::string& where);
// Throws UsageError unless `backend` offers `entry` ("" always passes: its default).
void check_backend_offers(const std::string& backend, const std::string& entry, const std::string& where);
std::string parse_backend(const std::string& name, const std::vector<std::string>& built, const std::string& where);

// The machine's physical memory: the largest size a cell may ask for.
std::uint64_t physical_memory_bytes();

}  // namespace abench
