// The one pairing step before every verdict: baseline and candidate results into cell pairs,
// each with both sides' samples as the rule reads them (src/verdict/change_rule.h), both sides'
// summaries, and why it cannot be judged where it cannot (a side failed, refused, partial, or
// holds a figure no ratio can judge). compare and the gate judge the same pairs; they differ
// only in their bar (src/verdict/compare.h, src/verdict/gate.h).
#pragma once

#include <string>
#include <vector>

#include "src/results/results.h"
#include "src/stats/statistics.h"
#include "src/verdict/change_rule.h"

namespace abench {

struct CellPair {
  std::string key;  // the baseline cell's: backend/policy/workload/size/R:P/live
  std::string workload;
  std::string metric = "ns_per_op";  // what the figures are, as results.json names them
  bool instructions = false;         // an exact count: its own threshold, no sampling error
  ProcessSamples before, after;
  std::vector<int> before_rounds, after_rounds;  // set when both sides are of one run
  bool samples_paired = false;                   // and its pairs took turns batch by batch (--interleave batch)
  std::string problem;                           // why this pair cannot be judged ("" when it can)
  // Where the pair comes from (unset in pairs made by hand, as in tests).
  const CellRecord* before_cell = nullptr;
  const CellRecord* after_cell = nullptr;
  CellSummary before_summary, after_summary;
  std::size_t variant_pair = 0;  // one run's pairs: p for variants 2p (baseline) and 2p+1

  CellSides sides() const { return {before, after, before_rounds, after_rounds, instructions, samples_paired}; }
  bool both_refused() const {
    return before_summary.status == CellStatus::refused && after_summary.status == CellStatus::refused;
  }
};

// One cell of a run's baseline side with its partner, paired by round; with --layouts, by
// layout (each side's rounds at one layout pooled: they share that layout's copies).
CellPair pair_in_run(const RunResults& results, const CellRecord& before, const CellRecord& after);

// The two sides of one run (a compare, a side-by-side gate): each baseline cell (variant 2p)
// with its partner (variant 2p+1), paired by round, and sample by sample where the pairs took
// turns batch by batch. In plan order.
std::vector<CellPair> pair_sides(const RunResults& results);

// Two results files by cell key: the baseline file's baseline side (or all of a run's cells)
// with the candidate file's candidate side; paired by round when both come from one run.
// Cells refused on both sides are left out. Throws UsageError when a file holds one key
// twice or the two files do not measure the same cells (incompatible matrices).
std::vector<CellPair> pair_results(const RunResults& baseline, const std::string& baseline_path,
                                   const RunResults& candidate, const std::string& candidate_path);

// Throws UsageError when two pairs share a key (several variants of one backend and policy):
// the gate's thresholds, noise floors and confirmation find cells by key.
void require_distinct_keys(const std::vector<CellPair>& pairs, const std::string& where);

// Adds the processes of `more` (another run of the same plan, or of part of it) to the
// cells of `results`, their rounds numbered after the last of `results`, so that the sides
// stay paired round by round. A failure in `more` fails the cell: a confirmation that
// crashed is no confirmation.
void pool_rounds(RunResults& results, const RunResults& more);

}  // namespace abench
