#include "src/verdict/compare.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "src/verdict/pairing.h"

namespace abench {
std::string_view name_of(Verdict v) {
  switch (v) {
    case Verdict::slower: return "slower";
    case Verdict::faster: return "faster";
    case Verdict::same: return "same";
    case Verdict::unclear: return "unclear";
    case Verdict::undecided: return "undecided";
    case Verdict::failed: return "failed";
  }
  return "?";
}

CompareTally tally_of(const Comparison& c) {
  CompareTally t;
  std::vector<double> detectable;
  for (const CompareRow& row : c.rows) {
    if (row.verdict == Verdict::undecided) ++t.undecided;
    if (row.verdict == Verdict::failed || row.verdict == Verdict::undecided) continue;
    ++t.judged;
    t.calls += row.verdict == Verdict::slower || row.verdict == Verdict::faster;
    t.same += row.verdict == Verdict::same;
    t.unclear += row.verdict == Verdict::unclear;
    t.expected_false_calls += row.judgement->false_call_rate();
    t.least_coverage = std::min(t.least_coverage, row.judgement->coverage);
    detectable.push_back(row.judgement->detectable);
  }
  if (!detectable.empty()) t.median_detectable = median(detectable);
  return t;
}

Verdict verdict_of(Call call) {
  switch (call) {
    case Call::slower: return Verdict::slower;
    case Call::faster: return Verdict::faster;
    case Call::same: return Verdict::same;
    case Call::unclear: return Verdict::unclear;
    case Call::undecided: return Verdict::undecided;
  }
  return Verdict::undecided;
}

namespace {
std::string allocator_of(const RunResults& results, std::size_t variant) {
  const WorkerHello* hello = hello_of_variant(results, variant);
  if (hello == nullptr) return "";
  return fmt::format("{}, malloc from {}; entry points: {} ({})", hello->allocator_version, hello->malloc_object,
                     hello->entry_set, hello->entry_calls);
}
}  // namespace

void derive_from_rows(Comparison& c) {
  // The geometric mean is an estimate, not a verdict: undecided cells count too.
  std::map<std::string, std::vector<double>> log_ratios;
  for (const CompareRow& row : c.rows)
    if (row.judgement && row.spec.workload != Workload::noop)
      log_ratios[c.pair_backends[row.pair]].push_back(std::log1p(row.judgement->change));
  c.geomean_change_by_backend.clear();
  c.geomean_change.reset();
  c.warnings.clear();
  std::vector<double> all;
  for (const auto& [backend, logs] : log_ratios) {
    double sum = 0;
    for (double l : logs) sum += l;
    c.geomean_change_by_backend[backend] = std::exp(sum / static_cast<double>(logs.size())) - 1;
    all.insert(all.end(), logs.begin(), logs.end());
  }
  if (!all.empty()) {
    double sum = 0;
    for (double l : all) sum += l;
    c.geomean_change = std::exp(sum / static_cast<double>(all.size())) - 1;
  }

  if (const int undecided = tally_of(c).undecided; undecided > 0) {
    const auto first =
        std::find_if(c.rows.begin(), c.rows.end(), [](const CompareRow& r) { return r.verdict == Verdict::undecided; });
    c.warnings.push_back(
        fmt::format("{} cell{} undecided: {}. abench does not guess a verdict the rounds "
                    "cannot support.",
                    undecided, undecided == 1 ? "" : "s", first->problem));
  }
  if (const auto moving = std::count_if(c.rows.begin(), c.rows.end(),
                                        [](const CompareRow& r) { return !r.layout.empty() && r.layout != "-"; });
      moving > 0)
    c.warnings.push_back(fmt::format(
        "{} cell{} move{} with layout beyond ±{:g}% (--layouts; the layout column): a change of that size there "
        "could be the layout alone, not evidence about the code",
        moving, moving == 1 ? "" : "s", moving == 1 ? "s" : "", 100 * c.settings.detect));
  if (const auto without = std::count_if(c.rows.begin(), c.rows.end(),
                                         [](const CompareRow& r) { return !r.counts_unavailable.empty(); });
      without > 0) {
    const auto first =
        std::find_if(c.rows.begin(), c.rows.end(), [](const CompareRow& r) { return !r.counts_unavailable.empty(); });
    c.warnings.push_back(fmt::format("counts unavailable in {} cell{} (timings and verdicts stand): {}", without,
                                     without == 1 ? "" : "s", first->counts_unavailable.substr(0, 400)));
  }
  for (std::size_t p = 0; p < c.baseline_loops.size() && p < c.candidate_loops.size(); ++p)
    if (c.baseline_loops[p] != c.candidate_loops[p])
      c.warnings.push_back(fmt::format(
          "'{}' and '{}' ran different timed loops ({}; {}): their workers were built from different abench code, so "
          "part of any change may be abench's loop, not the allocator's (docs/measurement.md, \"Which loop measured "
          "it\")",
          c.baseline_labels[p], c.candidate_labels[p], timed_loop_phrase(c.baseline_loops[p]),
          timed_loop_phrase(c.candidate_loops[p])));
  if (const auto failed =
          std::count_if(c.rows.begin(), c.rows.end(), [](const CompareRow& r) { return r.verdict == Verdict::failed; });
      failed > 0)
    c.warnings.push_back(
        fmt::format("{} cell{} without a verdict: see the rows marked failed", failed, failed == 1 ? "" : "s"));
}

void mark_layout(CompareRow& row, const CellSummary& before, const CellSummary& after, double margin) {
  const bool b = before.layout && before.layout->sensitive(margin);
  const bool a = after.layout && after.layout->sensitive(margin);
  row.layout = b && a ? "both" : b ? "baseline" : a ? "candidate" : "-";
  for (const auto& side : {before.layout, after.layout})
    if (side) row.layout_range = std::max(row.layout_range.value_or(0.0), side->range);
}

Comparison compare_results(const RunResults& results, const VerdictSettings& settings) {
  Comparison c;
  c.settings = settings;
  c.measure = results.protocol.measure;
  c.samples_paired = results.protocol.interleave_batches;
  c.processes = results.protocol.processes;
  c.until_interval = results.protocol.until_interval;
  c.max_rounds = results.protocol.max_rounds;
  c.budget_s = results.protocol.budget_s;
  c.layouts = results.protocol.layouts > 0;
  const Plan& plan = results.plan;
  for (std::size_t v = 0; v + 1 < plan.variants.size(); v += 2) {
    c.baseline_labels.push_back(plan.variants[v].label());
    c.candidate_labels.push_back(plan.variants[v + 1].label());
    c.baseline_allocators.push_back(allocator_of(results, v));
    c.candidate_allocators.push_back(allocator_of(results, v + 1));
    for (const auto& [side, variant] : {std::pair{&c.baseline_loops, v}, std::pair{&c.candidate_loops, v + 1}}) {
      const WorkerHello* hello = hello_of_variant(results, variant);
      side->push_back(hello != nullptr ? hello->timed_loop : "");
    }
    c.pair_backends.push_back(plan.variants[v].backend == plan.variants[v + 1].backend
                                  ? plan.variants[v].backend
                                  : plan.variants[v].backend + "->" + plan.variants[v + 1].backend);
  }

  for (const CellPair& pair : pair_sides(results)) {
    CompareRow row;
    row.pair = pair.variant_pair;
    row.spec = pair.before_cell->cell.spec;
    row.before_cell = pair.before_cell->cell.spec.id;
    row.after_cell = pair.after_cell->cell.spec.id;
    row.before_counts = pair.before_cell->counts;
    row.after_counts = pair.after_cell->counts;
    if (!pair.before_cell->counts_unavailable.empty())
      row.counts_unavailable = "baseline: " + pair.before_cell->counts_unavailable;
    else if (!pair.after_cell->counts_unavailable.empty())
      row.counts_unavailable = "candidate: " + pair.after_cell->counts_unavailable;
    const CellSummary& b = pair.before_summary;
    const CellSummary& a = pair.after_summary;
    row.before_ns = b.ns_per_op;
    row.after_ns = a.ns_per_op;
    row.before_min = b.process_min_ns;
    row.before_max = b.process_max_ns;
    row.after_min = a.process_min_ns;
    row.after_max = a.process_max_ns;
    if (!pair.problem.empty()) {
      row.problem = pair.problem;
    } else {
      // The two sides of a compare ran round by round: paired by round, and sample by sample
      // when the pairs took turns batch by batch.
      row.judgement = judge_change(pair.sides(), settings.confidence, settings.min_effect, settings.detect);
      row.verdict = verdict_of(row.judgement->call);
      if (row.verdict == Verdict::undecided) row.problem = row.judgement->reason;
    }
    if (c.layouts) mark_layout(row, b, a, settings.detect);
    c.rows.push_back(std::move(row));
  }

  derive_from_rows(c);
  return c;
}

}  // namespace abench
