#include "src/verdict/context.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "src/plan/plan.h"
#include "src/results/paired_view.h"
#include "src/util/text_table.h"

namespace abench {

VerdictSettings context_settings(const RunProtocol& protocol) {
  VerdictSettings settings;
  if (protocol.interval_confidence > 0) settings.confidence = protocol.interval_confidence;
  return settings;
}

std::string context_rule_text(const VerdictSettings& settings) {
  return fmt::format(
      "Context (--context): each cell in the matrix's processes, after the cells before it, against the same cell in "
      "fresh processes of its own, paired round by round; change = in matrix / fresh − 1; sensitive: the {:.0f}% "
      "interval excludes 0 and |change| ≥ {:.1f}%. Counts: fresh → in matrix (the in-matrix counting run measures "
      "the cells in one process, in the matrix's order; its peak RSS is the process's so far).",
      100 * settings.confidence, 100 * settings.min_effect);
}

bool is_fresh_variant(const Variant& variant) {
  return variant.name.size() > kFreshSuffix.size() && variant.name.ends_with(kFreshSuffix);
}

std::vector<std::size_t> in_matrix_variants(const RunResults& results) {
  std::vector<std::size_t> out;
  for (std::size_t v = 0; v < results.plan.variants.size(); ++v)
    if (!is_fresh_variant(results.plan.variants[v])) out.push_back(v);
  return out;
}

std::vector<CellContext> context_of(const RunResults& results, const VerdictSettings& settings) {
  // Each in-matrix variant beside its fresh twin, the fresh side as the baseline: the
  // change is in matrix / fresh - 1.
  const auto& variants = results.plan.variants;
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t m : in_matrix_variants(results))
    for (std::size_t f = 0; f < variants.size(); ++f)
      if (is_fresh_variant(variants[f]) && variants[f].name == variants[m].label() + std::string(kFreshSuffix))
        pairs.emplace_back(f, m);
  std::vector<std::vector<int>> cells_of(variants.size());
  for (const CellRecord& c : results.cells) cells_of[c.cell.variant].push_back(c.cell.spec.id);
  // The view's cells are the pairs' cells in order: the original id of each.
  std::vector<int> original;
  for (const auto& [f, m] : pairs)
    for (std::size_t v : {f, m}) original.insert(original.end(), cells_of[v].begin(), cells_of[v].end());

  const Comparison c = compare_results(paired_view(results, pairs), settings);
  std::vector<CellContext> out;
  for (const CompareRow& row : c.rows) {
    CellContext x;
    x.cell = original.at(static_cast<std::size_t>(row.after_cell));
    x.fresh_cell = original.at(static_cast<std::size_t>(row.before_cell));
    x.fresh = row.before_ns;
    if (row.judgement) {
      x.change = row.judgement->change;
      if (row.judgement->call != Call::undecided) {
        x.low = row.judgement->low;
        x.high = row.judgement->high;
      }
    }
    x.flag = row.verdict == Verdict::slower || row.verdict == Verdict::faster      ? "sensitive"
             : row.verdict == Verdict::undecided || row.verdict == Verdict::failed ? std::string(name_of(row.verdict))
                                                                                   : "-";
    out.push_back(std::move(x));
  }
  std::sort(out.begin(), out.end(), [](const CellContext& a, const CellContext& b) { return a.cell < b.cell; });
  return out;
}

RunResults in_matrix_view(const RunResults& results) {
  const std::vector<std::size_t> in_matrix = in_matrix_variants(results);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t i = 0; i + 1 < in_matrix.size(); i += 2) pairs.emplace_back(in_matrix[i], in_matrix[i + 1]);
  return paired_view(results, pairs);
}

void mark_context(Comparison& comparison, const std::vector<CellContext>& context) {
  std::map<int, bool> sensitive;
  for (const CellContext& x : context) sensitive[x.cell] = x.flag == "sensitive";
  comparison.context = true;
  for (CompareRow& row : comparison.rows) {
    const bool before = sensitive[row.before_cell], after = sensitive[row.after_cell];
    row.context = before && after ? "both" : before ? "baseline" : after ? "candidate" : "-";
  }
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
                            const VerdictSettings& settings, bool markdown) {
  std::vector<std::vector<std::string>> rows{{"variant", "cell", "in matrix", "fresh", "change", "interval",
                                              "minor faults", "allocator resident bytes", "peak RSS bytes"}};
  for (const CellContext& x : context) {
    if (x.flag != "sensitive") continue;
    const CellRecord& in_matrix = results.cells[static_cast<std::size_t>(x.cell)];
    const CellRecord& fresh = results.cells[static_cast<std::size_t>(x.fresh_cell)];
    rows.push_back({results.plan.variants[in_matrix.cell.variant].label(), cell_label(in_matrix.cell.spec),
                    in_matrix.summary.ns_per_op ? fmt::format("{:.2f}", *in_matrix.summary.ns_per_op) : "-",
                    x.fresh ? fmt::format("{:.2f}", *x.fresh) : "-", percent(x.change),
                    fmt::format("[{}, {}]", percent(x.low), percent(x.high)),
                    placements(fresh.counts, in_matrix.counts, [](const CellCounts& k) { return k.minor_faults; }),
                    placements(fresh.counts, in_matrix.counts,
                               [](const CellCounts& k) {
                                 return k.allocator_resident_available ? std::to_string(k.allocator_resident_bytes)
                                                                       : std::string("-");
                               }),
                    placements(fresh.counts, in_matrix.counts, [](const CellCounts& k) { return k.peak_rss_bytes; })});
  }
  std::size_t judged = 0;
  for (const CellContext& x : context) judged += x.flag == "sensitive" || x.flag == "-";
  const std::string rule = context_rule_text(settings);
  const std::string heading = markdown ? "\n### Context-sensitive cells\n\n" : "";
  if (rows.size() == 1)
    return fmt::format("{}{}\nContext-sensitive cells: none of {} judged.\n", heading, rule, judged);
  const std::vector<bool> numeric{false, false, true, true, true, false, true, true, true};
  return fmt::format("{}{}\nContext-sensitive cells: {} of {} judged.\n{}{}", heading, rule, rows.size() - 1, judged,
                     markdown ? "\n" : "", markdown ? markdown_table(rows, numeric) : aligned_columns(rows, numeric));
}

}  // namespace abench
