// run --context: how much a cell's figure owes to what ran before it. Each cell is measured
// in the matrix's processes (after the cells before it) and in fresh processes of its own,
// paired round by round (src/plan/plan.h, make_context_plan), and the change from fresh to
// in-matrix is judged by the one rule (change_rule.h): `sensitive` where it is called.
#pragma once

#include <string>
#include <vector>

#include "src/results/results.h"
#include "src/results/results_writers.h"
#include "src/verdict/compare.h"

namespace abench {

// results from make_context_plan: one entry per in-matrix cell.
std::vector<CellContext> context_of(const RunResults& results, const VerdictSettings& settings);

// The cells flagged, as a table (cell, in matrix, fresh, change, interval, and the counts of
// both placements that moved), with the rule in a line; a line saying none were otherwise.
std::string context_section(const RunResults& results, const std::vector<CellContext>& context,
                            const VerdictSettings& settings);

}  // namespace abench
