#include "src/verdict/context.h"

#include <fmt/format.h>

#include "src/plan/plan.h"
#include "src/util/text_table.h"

namespace abench {

std::vector<CellContext> context_of(const RunResults& results, const VerdictSettings& settings) {
  // The fresh side is the baseline: the change is in matrix / fresh - 1.
  const Comparison c = compare_results(results, settings);
  std::vector<CellContext> out;
  for (const CompareRow& row : c.rows) {
    CellContext x;
    x.cell = row.after_cell;
    x.fresh = row.before_ns;
    if (row.judgement) {
      x.change = row.judgement->change;
      if (row.judgement->call != Call::undecided) {
        x.low = row.judgement->low;
        x.high = row.judgement->high;
      }
    }
    x.flag = row.verdict == Verdict::slower || row.verdict == Verdict::faster ? "sensitive"
             : row.verdict == Verdict::undecided || row.verdict == Verdict::failed
                 ? std::string(name_of(row.verdict))
                 : "-";
    out.push_back(std::move(x));
  }
  return out;
}

namespace {

std::string percent(const std::optional<double>& v) { return v ? fmt::format("{:+.1f}%", 100 * *v) : "-"; }

// "a → b" of a count the two placements measured, "-" where either has none.
template <typename Field>
std::string placements(const std::optional<CellCounts>& fresh, const std::optional<CellCounts>& in_matrix,
                       Field field) {
  if (!fresh || !in_matrix) return "-";
  const auto a = field(*fresh), b = field(*in_matrix);
  return a == b ? fmt::format("{}", a) : fmt::format("{} → {}", a, b);
}

}  // namespace

std::string context_section(const RunResults& results, const std::vector<CellContext>& context,
                            const VerdictSettings& settings) {
  std::vector<std::vector<std::string>> rows{{"variant", "cell", "in matrix", "fresh", "change", "interval",
                                              "minor faults", "allocator resident bytes", "peak RSS bytes"}};
  for (const CellContext& x : context) {
    if (x.flag != "sensitive") continue;
    const CellRecord& in_matrix = results.cells[static_cast<std::size_t>(x.cell)];
    const CellRecord& fresh = results.cells[static_cast<std::size_t>(results.plan.partner[static_cast<std::size_t>(x.cell)])];
    rows.push_back({results.plan.variants[in_matrix.cell.variant].label(), cell_label(in_matrix.cell.spec),
                    in_matrix.summary.ns_per_op ? fmt::format("{:.2f}", *in_matrix.summary.ns_per_op) : "-",
                    x.fresh ? fmt::format("{:.2f}", *x.fresh) : "-", percent(x.change),
                    fmt::format("[{}, {}]", percent(x.low), percent(x.high)),
                    placements(fresh.counts, in_matrix.counts, [](const CellCounts& k) { return k.minor_faults; }),
                    placements(fresh.counts, in_matrix.counts,
                               [](const CellCounts& k) { return k.allocator_resident_available
                                                                    ? std::to_string(k.allocator_resident_bytes)
                                                                    : std::string("-"); }),
                    placements(fresh.counts, in_matrix.counts, [](const CellCounts& k) { return k.peak_rss_bytes; })});
  }
  std::size_t judged = 0;
  for (const CellContext& x : context) judged += x.flag == "sensitive" || x.flag == "-";
  const std::string rule = fmt::format(
      "Context (--context): each cell in the matrix's processes, after the cells before it, against the same cell in "
      "fresh processes of its own, paired round by round; change = in matrix / fresh − 1; sensitive: the {:.0f}% "
      "interval excludes 0 and |change| ≥ {:.1f}%. Counts: fresh → in matrix (the in-matrix counting run measures "
      "the cells in one process, in the matrix's order; its peak RSS is the process's so far).",
      100 * settings.confidence, 100 * settings.min_effect);
  if (rows.size() == 1)
    return fmt::format("{}\nContext-sensitive cells: none of {} judged.\n", rule, judged);
  return fmt::format("{}\nContext-sensitive cells: {} of {} judged.\n{}", rule, rows.size() - 1, judged,
                     aligned_columns(rows, {false, false, true, true, true, false, true, true, true}));
}

}  // namespace abench
