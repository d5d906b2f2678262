// A compare's rows with the work behind their time change: each row's two cells' figures
// from the instrumented pass (src/run/explain_pass.h) and its reading.
#pragma once

#include "src/results/results.h"
#include "src/verdict/compare.h"

namespace abench {

// instrumented: run_explain_pass over the plan `c` was judged from (the same cell ids).
void explain_comparison(Comparison& c, const RunResults& instrumented);

// The time verdict as the reading rule sees it.
TimeMove time_move_of(Verdict verdict);

}  // namespace abench
