// Which timed loop (harness/timed_loop.h) measured a run's figures, by backend, and the one
// check that two sets of figures about to be judged together came from the same loops: a
// figure that moved because abench's loop changed is abench's change, not the allocator's.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "src/plan/variant.h"
#include "src/results/results.h"

namespace abench {

// Backend -> timed loop, as the workers of a run's variants named it; a variant none of whose
// workers started says nothing.
using TimedLoops = std::map<std::string, std::string>;
TimedLoops timed_loops_of(const RunResults& results);
// The same from each variant's loop as its worker names it now (src/run/preflight.h).
TimedLoops timed_loops_of(const std::vector<Variant>& variants, const std::vector<std::string>& loops);

// A side of a judgement: what it is, for the message ("the baseline (DIR/results.json)").
struct LoopSide {
  const TimedLoops& loops;
  std::string what;
};

// UsageError naming the backend and both loops where a backend on both sides has two; `command`
// begins the message and `remedy` ends it.
void refuse_other_timed_loops(const LoopSide& a, const LoopSide& b, const std::string& command,
                              const std::string& remedy);

}  // namespace abench
