// What every measuring command (run, compare) shares: the matrix with its command-line
// overrides, the output directory, and executing a plan with results on disk after
// every cell.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/cli/commands.h"
#include "src/plan/plan.h"
#include "src/results/results.h"

namespace abench {

void add_measure_options(CLI::App& command, MeasureOptions& options);
// --resume DIR, for the help text: main() handles it before parsing (command_line_to_parse).
void add_resume_option(CLI::App& command);

// The plan, or with --shard K/N its shard K (src/plan/shard.h).
Plan shard_if_asked(Plan plan, const Matrix& matrix, const MeasureOptions& options);

// Loads the matrix, applies the command line's axes and protocol values, draws the seed.
Matrix load_measure_matrix(const MeasureOptions& options, const std::vector<std::string>& built);

// The protocol of two sides judged on paired rounds (compare, side-by-side gate, calibrate):
// - a verdict at `confidence` needs rounds_needed(confidence) rounds (6 at 95%): without
//   --processes, at least that many;
// - each cell a fresh process, the two sides' processes of a cell alive at once and taking
//   turns batch by batch (--interleave batch, the default; src/run/batch_pacer.h): a spell of
//   the shared machine hits both sides' neighbouring samples (A/A, default matrix: 90th
//   percentile of |round change| 4.7% against 48% with the two processes one after the other,
//   docs/statistics.md); --interleave cell runs them back to back, process one process a side
//   a round over every cell.
// Exact counts need neither.
void use_paired_protocol(RunProtocol& protocol, const MeasureOptions& options, double confidence);
// --context (src/cli/protocol_modes.cc): refuses what it cannot go with, then sets the
// protocol's context mode (one in-matrix process a round, the matrix's order, >= 6 rounds).
void use_context_protocol(RunProtocol& protocol, const MeasureOptions& options);

// The matrix a results.json was measured with (its axes and protocol as run, seed
// included), with the command line's values on top: a gate's fresh candidate is measured
// exactly like its baseline unless told otherwise.
Matrix matrix_of_results(const Matrix& stored, const MeasureOptions& options,
                         const std::vector<std::string>& built);

// A resumed command runs the code its variants name (exe=, plugin=, preload=, env=) and
// stores a baseline only when abench recorded writing that command there or the user trusts
// it (src/run/run_origin.h): UsageError otherwise, before anything runs.
void check_resumed_command_trusted(const MeasureOptions& options, const std::vector<Variant>& variants,
                                   const std::optional<std::string>& save_baseline = std::nullopt);

// --out or results/<UTC time>-<name>; refuses a directory that already holds results,
// unless it is the interrupted run being resumed.
std::filesystem::path prepare_output_dir(const std::string& out, const std::string& name, bool resume = false);


}  // namespace abench
