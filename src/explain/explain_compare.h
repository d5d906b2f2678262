// A compare's rows with the work behind their time change: each row's two cells' figures
// from the instrumented pass (src/run/explain_pass.h) and its reading.
#pragma once

#include "src/results/results.h"
#include "src/verdict/compare.h"

namespace abench {

// instrumented: run_explain_pass over the plan `c` was judged from (the same cell ids).
void explain_comparison(Comparison& c, const RunResults& instrumented);

// The time verdict, change and interval as the reading rule sees them.
TimeChange time_change_of(const CompareRow& row);

}  // namespace abench
