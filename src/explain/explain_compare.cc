#include "src/explain/explain_compare.h"

#include <algorithm>

#include "src/util/text.h"

namespace abench {
TimeChange time_change_of(const CompareRow& row) {
  TimeChange t;
  if (!row.judgement || (row.verdict != Verdict::slower && row.verdict != Verdict::faster)) return t;
  t.move = row.verdict == Verdict::slower ? TimeMove::slower : TimeMove::faster;
  t.change = row.judgement->change, t.low = row.judgement->low, t.high = row.judgement->high;
  return t;
}

void explain_comparison(Comparison& c, const RunResults& instrumented) {
  c.explained = true;
  for (CompareRow& row : c.rows) {
    PairExplanation e;
    const auto cell_at = [&](int id) -> const CellRecord* {
      const auto at = static_cast<std::size_t>(id);
      return at < instrumented.cells.size() ? &instrumented.cells[at] : nullptr;
    };
    const CellRecord* before = cell_at(row.before_cell);
    const CellRecord* after = cell_at(row.after_cell);
    if (before) e.before = work_figures_of(*before);
    if (after) e.after = work_figures_of(*after);
    if (!e.before)
      e.unavailable = "baseline: " + why_no_work_figures(before);
    else if (!e.after)
      e.unavailable = "candidate: " + why_no_work_figures(after);
    else
      e.reading = reading_of(time_change_of(row), *e.before, *e.after);
    e.unavailable = printable(e.unavailable.substr(0, 400));
    row.explanation = std::move(e);
  }
}

}  // namespace abench
