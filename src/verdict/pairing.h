// The cells of two results paired for a verdict: each baseline cell with its candidate.
#pragma once

#include <string>
#include <vector>

#include "src/results/result_file.h"
#include "src/stats/statistics.h"

namespace abench {

struct GatePair {
  std::string key;  // backend/policy/workload/size/R:P/live
  std::string workload;
  std::string metric = "ns_per_op";  // what the figures are, as results.json names them
  bool instructions = false;  // an exact count: its own threshold, no sampling error
  ProcessSamples before, after;
  std::vector<int> before_rounds, after_rounds;  // set when both sides are of one run
  bool samples_paired = false;  // and its pairs took turns batch by batch (--interleave batch)
  std::string problem;  // why this pair cannot be judged (a failed cell)
};

// Cells of two result files paired by key: the baseline file's baseline side (or all of a
// run's cells) with the candidate file's candidate side. When both come from one run (a
// compare's two sides), their processes are paired by round too (judge_change). Throws UsageError when a file
// holds one cell twice or the two files do not measure the same cells (incompatible
// matrices).
std::vector<GatePair> pair_results(const StoredResults& baseline, const StoredResults& candidate);

// Adds the processes of `more` (another run of the same plan, or of part of it) to the
// cells of `results` with the same key and side, their rounds numbered after the last of
// `results`, so that the sides stay paired round by round.
void pool_rounds(StoredResults& results, const StoredResults& more);

}  // namespace abench
