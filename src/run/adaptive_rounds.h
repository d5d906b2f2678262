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

#include <chrono>
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
  // --budget: the seconds the whole measurement may take (0: none). Rounds are then added
  // only to the cells expected to reach the width within the time left, cheapest first.
  double budget_s = 0;
};

// The rule: another round when the interval is wider than the target (infinite: it cannot
// reach the confidence yet) and the cell has fewer than max_rounds rounds.
bool needs_another_round(double width, int rounds, const IntervalTarget& target);

// A cell's interval now: its width, the relative interval of a run cell's figure or of a
// compare pair's change (cell: the baseline's), infinity while too few rounds reach the
// confidence; and the spread of the log figures it is built from. nullopt for a cell that
// failed or was refused (no round will help it).
struct IntervalNow {
  double width = 0;
  double spread = 0;
};
std::optional<IntervalNow> interval_now(const RunResults& results, int cell, double confidence);
std::optional<double> interval_width(const RunResults& results, int cell, double confidence);

// The cells to give one more round (compare: the baseline cell of each pair), in plan order.
std::vector<int> cells_needing_a_round(const RunResults& results, const IntervalTarget& target);

// A cell that needs a round, as a budget weighs it.
struct RoundCandidate {
  int cell = 0;
  int rounds = 0;            // it has
  double spread = 0;         // of its rounds' log figures (robust_spread; 0: unknown)
  double round_seconds = 0;  // one more round of it (a compare: both sides)
};

// The rounds a cell is expected to need before its interval is `target` wide at the
// confidence: the sign test's interval narrows as 2 z sqrt(pi/2) spread / sqrt(rounds) for
// large counts. At least one; one when the spread is unknown.
int rounds_to_reach(double spread, int rounds, double target, double confidence);

// The cells a budget gives the next round: those expected to reach the width at the least
// cost (rounds still needed x a round's seconds) first, as many as the seconds left can
// take to the width; when none can, as many of the nearest as one round of each fits.
// Chosen by spread and cost alone, never by where the interval lies, so the budget keeps
// the width rule's false-call rate. In the candidates' order; empty when no round fits.
std::vector<int> cells_within_budget(const std::vector<RoundCandidate>& candidates, double target, double confidence,
                                     double seconds_left);

// Runs rounds after those of the plan until no cell needs one or abench is interrupted.
// on_round(round_jobs, cells) is called before each round runs (progress, a line on stderr).
// With a budget, `started` is when the measurement began, and a round is run only for the
// cells cells_within_budget picks; on_round's `left` counts the cells still wider than the
// target (those the budget leaves out included).
struct RoundAnnouncement {
  const std::vector<Job>& jobs;
  std::size_t cells = 0;       // this round's
  std::size_t unresolved = 0;  // cells still wider than the target
  double seconds_left = -1;    // of the budget (-1: none)
};
void run_adaptive_rounds(RunResults& results, const IntervalTarget& target, WorkerLauncher& launcher,
                         const OrchestratorHooks& hooks, std::chrono::steady_clock::time_point started,
                         const std::function<void(const RoundAnnouncement&)>& on_round);

// What a budget left undone: the cells still wider than the target when it ran out.
std::size_t cells_left_wide(const RunResults& results, const IntervalTarget& target);

}  // namespace abench
