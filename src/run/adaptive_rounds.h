// Adaptive rounds (--until-interval): after the plan's rounds, one more round at a time for
// the cells whose interval is still wider than the target, until every cell's is narrow
// enough or has max_rounds rounds. A compare's cell is its pair (the change's interval,
// src/verdict/change_rule.h); a run's cell is its figure (the sign test's interval for the
// median of its process medians).
//
// The rule stops on the interval's width, never on the verdict: whether a round is added
// does not depend on where the interval lies, so stopping does not pick the rounds that
// happen to exclude 0. tests/adaptive_rounds_test.cc measures the false-call rate this
// gives against the fixed protocol and against stopping once significant (docs/statistics.md).
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <vector>

#include "src/run/orchestrator.h"
#include "src/plan/protocol_rules.h"
#include "src/results/results.h"

namespace abench {


struct IntervalTarget {
  double width = 0;  // a fraction: 0.02 is 2%
  int max_rounds = kDefaultMaxRounds;
  double confidence = 0.95;
};

// The rule: another round when the interval is wider than the target (infinite: it cannot
// reach the confidence yet) and the cell has fewer than max_rounds rounds.
bool needs_another_round(double width, int rounds, const IntervalTarget& target);

// The width of a cell's interval now: the relative interval of a run cell's figure, or of a
// compare pair's change (cell: the baseline's); infinity while too few rounds reach the
// confidence; nullopt for a cell that failed or was refused (no round will help it).
std::optional<double> interval_width(const RunResults& results, int cell, double confidence);

// The cells to give one more round (compare: the baseline cell of each pair), in plan order.
std::vector<int> cells_needing_a_round(const RunResults& results, const IntervalTarget& target);

// Runs rounds after those of the plan until no cell needs one or abench is interrupted.
// on_round(round_jobs, cells) is called before each round runs (progress, a line on stderr).
void run_adaptive_rounds(RunResults& results, const IntervalTarget& target, WorkerLauncher& launcher,
                         const OrchestratorHooks& hooks,
                         const std::function<void(const std::vector<Job>&, std::size_t cells)>& on_round);

}  // namespace abench
