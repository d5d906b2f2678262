// What abench report draws, read back from the files a run, a compare or a gate wrote
// (results.json, compare.json, gate.json): the report is a reader of abench's files like
// any other tool, never of its internals.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace abench {

struct ReportCell {
  std::string variant, side, backend, policy, workload;
  std::uint64_t size = 0, requested_align = 0, preferred_align = 0, live = 0;
  std::string status, error;
  std::optional<double> value, process_min, process_max;  // the measure per operation
  std::vector<double> process_medians;
  std::vector<std::vector<double>> samples;                       // per process
  std::optional<double> final_request_bytes, block_usable_bytes;  // largest over the cell's buffers
};

// One judged change: a compare's row or a gate's cell.
struct ReportChange {
  std::string group;  // "system/exact -> system/padded", or the gate's backend/policy
  std::string workload;
  std::string cell;                         // cell_axes_label
  std::optional<double> change, low, high;  // after/before - 1, and its interval
  std::string verdict;                      // slower, faster, same, unclear, undecided, failed; regression, pass, ...
  std::string problem;
  std::optional<double> threshold;  // a gate's applied threshold
  // --explain: the instructions' change and the reading (src/explain/work_figures.h)
  std::optional<double> instructions_change;
  std::string reading;
  std::string context;  // compare --context: "-", "baseline", "candidate", "both"
  std::string layout;   // compare --layouts: as context, with the range between layouts
  std::optional<double> layout_range;
};

// --context: an in-matrix cell against the same cell in fresh processes (src/verdict/context.h).
struct ReportContext {
  std::string variant, workload, cell;
  std::optional<double> in_matrix, fresh, change, low, high;
  std::string flag;  // sensitive, -, undecided, failed
};

// --explain's hot path: one function of a pair of variants (or of a run's variant), as
// objdump listed it on each side, and the diff of the two (src/report/report_hot_path.h).
struct ReportHotPath {
  std::string function;
  std::vector<std::pair<std::string, std::string>> listings;  // "label: object" -> listing
  std::optional<std::string> diff;                            // a pair's: "" when the normalised listings agree
  int changed_lines = 0;
};

struct ReportModel {
  std::filesystem::path dir;
  std::string kind;                   // run, compare or gate
  std::string title;                  // "compare of quick" ...
  std::string unit;                   // "ns/op", "instr/op", ...
  std::vector<std::string> variants;  // labels in results.json's order
  std::vector<ReportCell> cells;
  std::vector<ReportChange> changes;
  std::vector<std::pair<std::string, std::string>> facts;  // conditions and protocol, for the header
  std::vector<std::string> warnings;
  // What the report refused to read from the directory (a link where the hot path should be):
  // among the warnings, and said on stderr too, as it is news to whoever made the report.
  std::vector<std::string> unread;
  std::vector<ReportHotPath> hot_paths;
  std::vector<ReportContext> context;  // --context only: every in-matrix cell
  std::string context_rule;            // how `sensitive` was decided, in words
};

// "64 B, align 256, live 1" (align R:P when the two differ).
std::string cell_axes_label(std::uint64_t size, std::uint64_t requested_align, std::uint64_t preferred_align,
                            std::uint64_t live);
// "64 B", "4 KiB", "1.5 MiB".
std::string byte_size_label(std::uint64_t bytes);

// Reads DIR/results.json and DIR/compare.json or DIR/gate.json, whichever are there.
// Throws UsageError naming the file and field when none is there or one is malformed.
ReportModel load_report_model(const std::filesystem::path& dir);

}  // namespace abench
