// What a measuring command (run, compare, gate, calibrate) was told about the matrix and the
// protocol, as typed: the part of every measuring workflow's request (src/flow/) that says
// what to measure, and the one place that checks it against the matrix.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/plan/matrix.h"
#include "src/plan/protocol_fields.h"

namespace abench {

struct MeasureOptions {
  std::string matrix = "default";
  std::vector<std::string> backends, policies, workloads, sizes, alignments, lives;
  // The protocol's fields given on the command line (src/plan/protocol_fields.h), each checked
  // by its row as it was parsed.
  GivenProtocol protocol;
  std::optional<std::string> interleave;  // paired commands: "batch" (default), "cell" or "process"
  std::vector<std::string> formats;       // src/exports/format_registry.h
  bool no_report = false;                 // skip report.html and report/ (src/report/)
  // --explain: every cell once more under callgrind's simulators (src/run/explain_pass.h)
  bool explain = false;
  // run, compare --context: every cell also in fresh processes of its own (src/verdict/context.h)
  bool context = false;
  std::optional<std::string> entry;  // entry-point set for every backend
  std::optional<std::string> shard;  // "K/N": measure only shard K of the plan (src/plan/shard.h)
  // run, compare: the directory of the interrupted run this one continues (main() has
  // replaced the command line by the one stored there).
  std::string resume;
  // Why the stored command may not run the code it names ("" it may): abench has no record
  // of writing it there, and the user did not say --trust-stored-command.
  std::string resume_untrusted_because;
};

// The options' axes and protocol values over `m`, each checked (UsageError naming the option
// and what it allows): a combination wrong anywhere first, then what this machine cannot
// measure (perf counters, callgrind under emulation, the CPU to pin to).
void apply_measure_options(Matrix& m, const MeasureOptions& o, const std::vector<std::string>& built);

// UsageError when --explain is combined with what it cannot go with anywhere: --measure
// instructions (it counts already) or --shard.
void check_explain_combination(Measure measure, bool sharded);

// The protocol of two sides judged on paired rounds (compare, side-by-side gate, calibrate):
// a verdict at `confidence` needs min_rounds_for(confidence) rounds (6 at 95%), so at least
// that many unless --processes was given; each cell a fresh process, the two sides' processes
// of a cell alive at once and taking turns batch by batch (--interleave batch, the default;
// src/run/batch_pacer.h; docs/statistics.md has the A/A figures), back to back with
// --interleave cell, or one process a side a round over every cell with --interleave process.
// Exact counts need neither.
void use_paired_protocol(RunProtocol& protocol, const MeasureOptions& options, double confidence);

// --context: refuses what it cannot go with, then sets the protocol's context mode (one
// in-matrix process a round, the matrix's order, >= 6 rounds).
void use_context_protocol(RunProtocol& protocol, const MeasureOptions& options);

// --layouts K (already set in protocol): refuses what it cannot go with (a layout other than
// drawn, exact counts, --context, adaptive rounds, fewer rounds a layout than
// rounds_per_layout), and gives every layout that many unless --processes was given.
void use_layouts_protocol(RunProtocol& protocol, bool processes_given);

}  // namespace abench
