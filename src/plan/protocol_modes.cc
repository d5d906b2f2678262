// How the measuring commands turn their options into a protocol's process mode: compare's
// paired rounds and --context's two placements.
#include <algorithm>

#include <fmt/format.h>

#include "src/plan/measure_options.h"
#include "src/plan/protocol_rules.h"
#include "src/util/errors.h"
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

void use_paired_protocol(RunProtocol& protocol, const MeasureOptions& options, double confidence) {
  if (row_of(protocol.measure).exact) return;
  if (!options.protocol.has("processes")) protocol.processes = std::max(protocol.processes, min_rounds_for(confidence));
  if (protocol.budget_s > 0 && row_of(protocol.measure).wall_clock) {
    if (!options.protocol.has("samples")) protocol.samples = kBudgetSamples;
    if (!options.protocol.has("min_batch_ms")) protocol.min_batch_ms = kBudgetMinBatchMs;
  }
  protocol.interval_confidence = confidence;
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
