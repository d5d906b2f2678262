// Rules of the protocol that a run follows and results.json records (protocol.until_interval.rule,
// protocol.instructions_mode): stated once, used by the code that follows them and the codec
// that writes them down.
#pragma once

namespace abench {

// Adaptive rounds (src/run/adaptive_rounds.h).
inline constexpr int kDefaultMaxRounds = 24;
inline constexpr const char* kAdaptiveRoundsRule =
    "after the plan's rounds, one more round at a time for each cell whose interval at the confidence is wider than "
    "width_percent (high - low, in percent of the figure, or percentage points of the change), or cannot reach "
    "the confidence yet, until it has max_rounds rounds; stopped on width, never on the verdict";

}  // namespace abench
