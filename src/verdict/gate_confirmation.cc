#include "src/verdict/gate_confirmation.h"

#include <algorithm>

#include <fmt/format.h>

namespace abench {

std::vector<CellPair> gate_pairs(const RunResults& results, const std::string& path) {
  std::vector<CellPair> pairs = pair_sides(results);
  std::erase_if(pairs, [](const CellPair& p) { return p.both_refused(); });
  require_distinct_keys(pairs, path);
  return pairs;
}

Confirmation regressions_to_confirm(const GateVerdict& first, const RunResults& measured, const std::string& path) {
  Confirmation c;
  for (const GateCell& cell : first.cells)
    if (cell.outcome == GateOutcome::regression) c.suspects.insert(cell.key);
  const std::vector<CellPair> pairs = gate_pairs(measured, path);
  for (const CellPair& pair : pairs)
    if (c.suspects.contains(pair.key)) c.variants.insert({pair.variant_pair * 2, pair.variant_pair * 2 + 1});
  for (const CellPair& pair : pairs)
    if (c.variants.contains(pair.variant_pair * 2)) c.judged_again.insert(pair.key);
  return c;
}

void judge_with_second_run(GateVerdict& verdict, RunResults& measured, const RunResults& second, const Confirmation& c,
                           const GateRules& rules, const std::map<std::string, double>& noise,
                           const VerdictSettings& settings, const std::string& path, const std::string& second_dir) {
  auto judged = [&](const RunResults& results) {
    std::vector<CellPair> pairs = gate_pairs(results, path);
    std::erase_if(pairs, [&](const CellPair& p) { return !c.judged_again.contains(p.key); });
    std::map<std::string, GateCell> cells;
    for (GateCell& cell : evaluate_gate(pairs, rules, noise, settings).cells) cells[cell.key] = cell;
    return cells;
  };
  const auto replication = judged(second);
  pool_rounds(measured, second);
  const auto pooled = judged(measured);
  int confirmed = 0, cleared = 0, found = 0;
  for (GateCell& cell : verdict.cells) {
    const auto p = pooled.find(cell.key);
    if (p == pooled.end()) continue;
    const bool was = cell.outcome == GateOutcome::regression;
    cell = p->second;
    const auto r = replication.find(cell.key);
    const bool replicated = r != replication.end() && r->second.outcome == GateOutcome::regression;
    if (cell.outcome == GateOutcome::regression && !replicated) cell.outcome = GateOutcome::pass;
    const bool is = cell.outcome == GateOutcome::regression;
    confirmed += was && is;
    cleared += was && !is;
    found += !was && is;
  }
  recount(verdict);
  verdict.notes.push_back(fmt::format(
      "{} cell{} regressed in the first run. The {} variant pair{} holding them {} measured a second time (results "
      "in {}), and all {} of their cells judged again: a regression stands only where the second run alone and "
      "both runs' rounds pooled call it one. {} regression{} confirmed, {} cleared, {} found that the first run "
      "alone had not shown. The table shows the pooled figures for those cells.",
      c.suspects.size(), c.suspects.size() == 1 ? "" : "s", c.variants.size() / 2, c.variants.size() == 2 ? "" : "s",
      c.variants.size() == 2 ? "was" : "were", second_dir, c.judged_again.size(), confirmed, confirmed == 1 ? "" : "s",
      cleared, found));
}

}  // namespace abench
