// How the measuring commands turn their options into a protocol's process mode: compare's
// paired rounds and --context's two placements.
#include <algorithm>

#include <fmt/format.h>

#include "src/plan/measure_options.h"
#include "src/plan/protocol_rules.h"
#include "src/util/errors.h"
#include "src/stats/layout_spread.h"
#include "src/stats/rank_intervals.h"

namespace abench {

// --context: the matrix's processes keep their history (one a round over every cell), the
// fresh side's are made a cell each by the plan; a judgement needs rounds_needed rounds.
void use_context_protocol(RunProtocol& protocol, const MeasureOptions& o) {
  const auto refuse = [](std::string_view option, std::string_view why) {
    throw UsageError(fmt::format("option --context: not with {}: {}", option, why));
  };
  if (o.protocol.has("fresh_process_per_cell"))
    refuse("--fresh-process-per-cell", "--context measures each cell both ways itself");
  if (o.interleave) refuse("--interleave", "the in-matrix side is one process a round over every cell");
  const bool budget = o.protocol.has("until_interval.budget_seconds");
  if (budget || o.protocol.has("until_interval.width_percent"))
    refuse(budget ? "--budget" : "--until-interval", "added rounds are fresh processes, which have no history");
  if (o.shard) refuse("--shard", "a shard's processes would carry only the shard's cells as history");
  if (o.explain) refuse("--explain", "explain the cells in a run of their own");
  if (row_of(protocol.measure).exact)
    refuse("--measure instructions", "counts the instructions of the cells alone; --context is a timing claim");
  protocol.context = true;
  protocol.fresh_process_per_cell = false;
  protocol.interleave_batches = false;
  // One history, the same every round and named in results.json: the matrix's own order
  // (as a matrix run top to bottom gives it), unless --order says otherwise. A shuffled order
  // gives a cell another history each round, flagged only where most of them move it.
  if (!o.protocol.has("order")) protocol.order = CellOrder::matrix;
  if (!o.protocol.has("processes")) protocol.processes = std::max(protocol.processes, min_rounds_for(0.95));
}

void use_layouts_protocol(RunProtocol& protocol, bool processes_given) {
  const int k = protocol.layouts;
  if (k == 0) return;
  const auto refuse = [&](const std::string& why) {
    throw UsageError(fmt::format("option --layouts: {} (allowed: 2 to {}, with --layout drawn)", why, kMaxLayouts));
  };
  if (protocol.layout != LayoutMode::drawn)
    refuse(protocol.layout == LayoutMode::fixed
               ? "--layout fixed gives every process the same layout"
               : "--layout kernel draws a layout a process that cannot be given to another");
  if (row_of(protocol.measure).exact) refuse("--measure instructions counts; layouts move times");
  if (protocol.context) refuse("not with --context: measure each question in a run of its own");
  if (protocol.until_interval > 0)
    refuse("not with --until-interval or --budget: rounds added to some cells would give their layouts unequal turns");
  const int rounds = rounds_per_layout(k) * k;
  if (!processes_given)
    protocol.processes = std::max(protocol.processes, rounds);
  else if (protocol.processes < rounds)
    throw UsageError(fmt::format(
        "option --processes: {} rounds give --layouts {} fewer than {} rounds a layout, too few for the test "
        "between layouts to reach its level; allowed: {} or more",
        protocol.processes, k, rounds_per_layout(k), rounds));
}

void use_paired_protocol(RunProtocol& protocol, const MeasureOptions& options, double confidence) {
  if (row_of(protocol.measure).exact) return;
  if (!options.protocol.has("processes")) protocol.processes = std::max(protocol.processes, min_rounds_for(confidence));
  if (protocol.budget_s > 0 && row_of(protocol.measure).wall_clock) {
    if (!options.protocol.has("samples")) protocol.samples = kBudgetSamples;
    if (!options.protocol.has("min_batch_ms")) protocol.min_batch_ms = kBudgetMinBatchMs;
  }
  protocol.interval_confidence = confidence;
  // The verdict pairs the layouts (src/verdict/pairing.h): as many as a verdict needs rounds.
  if (protocol.layouts > 0 && protocol.layouts < min_rounds_for(confidence))
    throw UsageError(fmt::format(
        "option --layouts: {} layouts; a paired verdict pairs the layouts, and at {:g}% confidence it needs at "
        "least {} of them (allowed: {} to {})",
        protocol.layouts, 100 * confidence, min_rounds_for(confidence), min_rounds_for(confidence), kMaxLayouts));
  if (protocol.context) return;  // its processes are the plan's (use_context_protocol)
  const std::string interleave = options.interleave.value_or("batch");
  if (interleave == "process" && protocol.until_interval > 0)
    throw UsageError(
        "option --until-interval: rounds are added cell by cell, each a process of its own; "
        "--interleave process runs one process a side over every cell (allowed with "
        "--until-interval: --interleave batch or cell)");
  if (interleave != "process") protocol.fresh_process_per_cell = true;
  protocol.interval_confidence = confidence;
  protocol.interleave_batches = interleave == "batch";
}

}  // namespace abench
