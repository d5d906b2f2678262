// Rules of the protocol that a run follows and results.json records (protocol.until_interval.rule,
// protocol.instructions_mode): stated once, used by the code that follows them and the codec
// that writes them down.
#pragma once

namespace abench {

// Adaptive rounds (src/run/adaptive_rounds.h).
inline constexpr int kDefaultMaxRounds = 24;
// With --budget the time, not a count, bounds the rounds: the cap is only a backstop.
inline constexpr int kBudgetMaxRounds = 100;
inline constexpr double kMaxBudgetSeconds = 7 * 24 * 3600;
// A paired compare under a budget: cheaper processes, so the time buys rounds. The noise a
// round's ratio carries is mostly between processes, which longer processes do not average
// out (docs/statistics.md, "A time budget", has the measurements). Unless --samples or
// --min-batch-ms say otherwise.
inline constexpr int kBudgetSamples = 5;
inline constexpr double kBudgetMinBatchMs = 10;
// --layouts K: at most this many layouts.
inline constexpr int kMaxLayouts = 8;
inline constexpr const char* kAdaptiveRoundsRule =
    "after the plan's rounds, one more round at a time for each cell whose interval at the confidence is wider than "
    "width_percent (high - low, in percent of the figure, or percentage points of the change), or cannot reach "
    "the confidence yet, until it has max_rounds rounds; stopped on width, never on the verdict";
inline constexpr const char* kBudgetRule =
    "with a budget: before each added round, the cells still too wide are ordered by the seconds they are expected "
    "to need to reach width_percent (the rounds still needed, (2 z sqrt(pi/2) s / width)^2 - n for n rounds whose "
    "log ratios have the robust spread s, times a round's measured seconds), and the next round goes to as many of "
    "the cheapest as the budget's time left can take there, or, when none can, one round each for the nearest that "
    "fit; chosen by spread and cost, never by the verdict";

}  // namespace abench
