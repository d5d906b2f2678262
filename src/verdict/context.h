// --context: how much a cell's figure owes to what ran before it. Each cell is measured in
// the matrix's processes (after the cells before it) and in fresh processes of its own,
// paired round by round (src/plan/plan.h: make_context_plan, make_compare_context_plan);
// the change from fresh to in-matrix is judged by the one rule (change_rule.h), through a
// view that lays each (fresh, in-matrix) pair out as a compare's sides
// (src/results/paired_view.h): `sensitive` where it is called.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "src/results/results.h"
#include "src/results/results_writers.h"
#include "src/verdict/compare.h"

namespace abench {

// The rule a run --context judges by: the protocol's interval confidence, compare's bar.
VerdictSettings context_settings(const RunProtocol& protocol);
// How `sensitive` is decided, in a sentence.
std::string context_rule_text(const VerdictSettings& settings);

// A --context plan's fresh variants are named after their in-matrix twin's label.
bool is_fresh_variant(const Variant& variant);

// The variants measured in the matrix's processes, in order: a compare --context's pairs
// are these two by two.
std::vector<std::size_t> in_matrix_variants(const RunResults& results);

// results from a --context plan (run or compare): one entry per in-matrix cell, in cell order.
std::vector<CellContext> context_of(const RunResults& results, const VerdictSettings& settings);

// The cells flagged, as a table (cell, in matrix, fresh, change, interval, and the counts of
// both placements that moved), with the rule in a line; a line saying none were otherwise.
// markdown: a Markdown table under a heading (compare.md); else aligned for the terminal.
std::string context_section(const RunResults& results, const std::vector<CellContext>& context,
                            const VerdictSettings& settings, bool markdown = false);

// A compare --context's in-matrix variants as a compare's pairs: what its verdicts judge.
RunResults in_matrix_view(const RunResults& results);

// Sets comparison.context and each row's mark: "-", "baseline", "candidate" or "both" (the
// sides on which its cell is context-sensitive). The rows' cells are results' ids, as
// in_matrix_view keeps them.
void mark_context(Comparison& comparison, const std::vector<CellContext>& context);

}  // namespace abench
