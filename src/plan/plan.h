// Expands a matrix into cells and schedules them into rounds of worker processes.
//
// A variant is what one worker executable measures (backend x policy). In each of the
// P rounds every variant runs once, in an order rotated by one from round to round
// (ABC, BCA, CAB; two variants simply alternate), so slow drift of the machine hits every
// variant alike. By default one process runs all cells of its variant; with
// fresh_process_per_cell every (variant, cell) is a process of its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/protocol.h"
#include "src/plan/matrix.h"
#include "src/plan/variant.h"

namespace abench {

struct PlannedCell {
  CellSpec spec;            // spec.id is the cell's index in Plan::cells
  std::size_t variant = 0;  // index in Plan::variants
};

struct Job {
  WorkerMode mode = WorkerMode::time;
  int round = 0;
  std::size_t variant = 0;
  std::vector<int> cell_ids;
  std::uint64_t seed = 0;  // the worker's cell-order seed
  // A fresh worker for the cells a failed one had not reached: it runs them in the order
  // given (the failed worker's), not reshuffled.
  bool continuation = false;
};

// Which part of a whole plan a sharded plan is: cell i here is cell plan_ids[i] there.
struct PlanShard {
  int index = 1, count = 1;    // K of N
  std::size_t plan_cells = 0;  // cells of the whole plan
  std::vector<int> plan_ids;
  double expected_s = 0, plan_expected_s = 0;  // expected cost of this shard, of the whole plan
};

struct Plan {
  std::vector<Variant> variants;
  std::vector<PlannedCell> cells;
  std::vector<Job> jobs;  // in launch order: counting jobs first, then the timed rounds
  int processes = 0;
  // compare: variant 2p is pair p's baseline, 2p+1 its candidate; partner[c] is the cell
  // measuring the same work on the other side, and both are measured at one iteration
  // count. Empty for run.
  std::vector<int> partner;
  // Set when this is one shard of a larger plan (src/plan/shard.h).
  std::optional<PlanShard> shard;
};

// SplitMix64: a well-spread number from a seed and what it is for (per-process cell orders,
// a round's layout), the same wherever and whenever it is computed.
std::uint64_t mix_seed(std::uint64_t x);

// The cells one variant of `policy` measures, in the plan's order (workload, size,
// alignment, live count), ids from first_id: every plan lays a variant's cells out so, and a
// cell read back from a file is checked against the one at its place (same_work).
std::vector<CellSpec> variant_cells(const Matrix& matrix, Policy policy, int first_id);

// The same work: all but the id and the iteration count.
bool same_work(const CellSpec& a, const CellSpec& b);

// With protocol.counts, every (variant, cell) also gets one counting process of its own
// (fresh, so its peak RSS and page faults are the cell's). Throws UsageError when a cell
// would need more memory than the machine has.
Plan make_plan(const Matrix& matrix, std::uint64_t seed);
// The matrix's variants: its backends x policies, with its entry-point set.
std::vector<Variant> matrix_variants(const Matrix& matrix);
// The same over given variants instead of the matrix's backends x policies.
Plan make_variant_plan(const Matrix& matrix, std::vector<Variant> variants, std::uint64_t seed);

// Two sides, paired variant by variant (baselines[i] with candidates[i]). Within each pair
// the side that runs first alternates from round to round: baseline first, then candidate.
Plan make_compare_plan(const Matrix& matrix, const std::vector<Variant>& baselines,
                       const std::vector<Variant>& candidates, std::uint64_t seed);

// --context: each variant twice, paired as a compare's sides are: variant 2p runs every
// cell in a fresh process of its own (its label ends in kFreshSuffix), variant 2p+1 is the
// variant as given, one process a round over all its cells, with the history the matrix
// gives each. Which goes first alternates from round to round, so drift hits both alike.
inline constexpr std::string_view kFreshSuffix = " (fresh)";
Plan make_context_plan(const Matrix& matrix, const std::vector<Variant>& variants, std::uint64_t seed);
// compare --context: the compare's pairs as make_compare_plan lays them (variant 2p pair p's
// baseline, 2p+1 its candidate), one process a round over all cells, then the same variants
// again, each cell a fresh process of its own (labels ending in kFreshSuffix). Each round
// runs the variants in the reverse order of the round before, so each judged pair (the
// sides in the matrix; a side in the matrix and fresh) alternates which goes first.
Plan make_compare_context_plan(const Matrix& matrix, const std::vector<Variant>& baselines,
                               const std::vector<Variant>& candidates, std::uint64_t seed);

// One more timed round (number `round`) for the cells given, each a process of its own, with
// the seeds and variant order a full round of the plan would give them: adaptive rounds
// (src/run/adaptive_rounds.h). In a compare give the baseline cell of each pair; both sides
// run, the side the round puts first first.
std::vector<Job> round_jobs_for_cells(const Plan& plan, std::uint64_t seed, int round,
                                      const std::vector<int>& cell_ids);

// Bytes a cell keeps live at its peak, by the growth rule (an upper bound for padded).
std::uint64_t cell_footprint_bytes(const CellSpec& cell);

// A short, stable name for a cell: "grow 4096 a1:256 L64".
std::string cell_label(const CellSpec& cell);

}  // namespace abench
