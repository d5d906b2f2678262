#include "src/flow/merged_gate.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "src/results/results_reader.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"
#include "src/verdict/gate_confirmation.h"
#include "src/verdict/gate_file.h"
#include "src/verdict/pairing.h"

namespace abench {
namespace {

bool same_value(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

std::string percent(double fraction) { return fmt::format("{:g}%", fraction * 100); }

// The second run a shard measured to confirm its regressions: the shard's own variants and
// cells, read by the one reader.
RunResults stored_second_run(const ShardResults& shard) {
  const std::filesystem::path relative = std::filesystem::path("confirm") / "results.json";
  const std::string path = (shard.dir / relative).string();
  RunResults second = load_results_below(shard.dir, relative);
  bool same = second.plan.variants.size() == shard.results.plan.variants.size() &&
              second.cells.size() == shard.results.cells.size();
  for (std::size_t v = 0; same && v < second.plan.variants.size(); ++v)
    same = second.plan.variants[v].label() == shard.results.plan.variants[v].label();
  for (std::size_t i = 0; same && i < second.cells.size(); ++i)
    same = second.cells[i].cell.variant == shard.results.cells[i].cell.variant &&
           same_work(second.cells[i].cell.spec, shard.results.cells[i].cell.spec);
  if (!same)
    throw UsageError(
        fmt::format("abench merge: {} does not measure the variants and cells of {}: it is not that "
                    "shard's second run; nothing was merged",
                    path, shard.path));
  return second;
}

// One shard's cells judged afresh.
GateVerdict judge_shard(const ShardResults& shard, const MergedGateRules& j) {
  if (shard.results.plan.partner.empty()) {  // gated on the baseline's stored figures
    if (!j.baseline)
      throw UsageError(
          fmt::format("abench merge: {} was gated against a baseline's stored figures: name that "
                      "baseline (abench merge --baseline NAME|PATH) so its cells are judged again here; "
                      "nothing was merged",
                      shard.path));
    std::set<std::string> measured;
    for (const CellRecord& cell : shard.results.cells) measured.insert(cell_key(shard.results, cell));
    RunResults before = *j.baseline;
    std::erase_if(before.cells, [&](const CellRecord& c) { return !measured.contains(cell_key(before, c)); });
    return evaluate_gate(pair_results(before, j.baseline_path, shard.results, shard.path), j.rules, j.noise,
                         j.settings);
  }
  GateVerdict verdict = evaluate_gate(gate_pairs(shard.results, shard.path), j.rules, j.noise, j.settings);
  if (verdict.regressions == 0) return verdict;
  const std::filesystem::path second_path = shard.dir / "confirm" / "results.json";
  std::error_code ec;  // a link there is not followed, and is refused when read
  if (!std::filesystem::exists(std::filesystem::symlink_status(second_path, ec))) {
    verdict.notes.push_back(
        fmt::format("Shard {}/{} stored no second run of its regressions ({} is not there): "
                    "they stand unconfirmed.",
                    shard.index, shard.count, second_path.string()));
    return verdict;
  }
  RunResults measured = shard.results;
  const Confirmation confirmation = regressions_to_confirm(verdict, measured, shard.path);
  judge_with_second_run(verdict, measured, stored_second_run(shard), confirmation, j.rules, j.noise, j.settings,
                        shard.path, second_path.parent_path().string());
  return verdict;
}

// The shard's gate.json must have judged these cells at these thresholds and confidence.
void check_same_rules(const ShardResults& shard, const GateVerdict& judged) {
  const std::string path = (shard.dir / "gate.json").string();
  if (!std::filesystem::exists(path))
    throw UsageError(
        fmt::format("abench merge: {} is missing: every shard of a gate writes one; nothing was merged", path));
  const GateVerdict stored = gate_verdict_from_json(read_json_file_below(shard.dir, "gate.json", "abench merge"), path);
  const std::string give =
      "give abench merge the --confidence, --threshold, --gate-file, --noise and --baseline the "
      "shards were gated with; nothing was merged";
  if (!same_value(stored.confidence, judged.confidence))
    throw UsageError(fmt::format("abench merge: {}: field 'confidence' is {:g}, merge judges at {:g}: {}", path,
                                 stored.confidence, judged.confidence, give));
  std::map<std::string, const GateCell*> by_key;
  for (const GateCell& cell : stored.cells) by_key[cell.key] = &cell;
  if (by_key.size() != stored.cells.size() || stored.cells.size() != judged.cells.size())
    throw UsageError(
        fmt::format("abench merge: {} judges {} cells, the shard's results {}: it is not the gate of "
                    "those results; nothing was merged",
                    path, stored.cells.size(), judged.cells.size()));
  for (const GateCell& cell : judged.cells) {
    const auto s = by_key.find(cell.key);
    if (s == by_key.end())
      throw UsageError(
          fmt::format("abench merge: {} has no cell '{}', which the shard's results measure: it is not "
                      "the gate of those results; nothing was merged",
                      path, printable(cell.key)));
    const GateCell& was = *s->second;
    if (!same_value(was.threshold, cell.threshold) || !same_value(was.noise_floor, cell.noise_floor) ||
        !same_value(was.applied, cell.applied))
      throw UsageError(
          fmt::format("abench merge: {}: cell '{}' was judged at a threshold of {} (noise floor {}, "
                      "applied {}); merge's rules give {} (noise floor {}, applied {}): {}",
                      path, printable(cell.key), percent(was.threshold), percent(was.noise_floor), percent(was.applied),
                      percent(cell.threshold), percent(cell.noise_floor), percent(cell.applied), give));
  }
}

}  // namespace

GateVerdict judge_merged_gate(const std::vector<ShardResults>& shards, const RunResults& merged,
                              const MergedGateRules& j) {
  GateVerdict verdict;
  verdict.confidence = j.settings.confidence;
  std::vector<std::string> shard_notes;
  for (const ShardResults& shard : shards) {
    GateVerdict part = judge_shard(shard, j);
    part.confidence = j.settings.confidence;
    check_same_rules(shard, part);
    for (GateCell& cell : part.cells) verdict.cells.push_back(std::move(cell));
    for (const std::string& note : part.notes)
      shard_notes.push_back(fmt::format("Shard {}/{}: {}", shard.index, shard.count, note));
  }
  // In the order of the whole plan, as the unsharded gate lists them.
  std::map<std::string, std::size_t> position;
  for (const CellRecord& cell : merged.cells) position.emplace(cell_key(merged, cell), position.size());
  std::stable_sort(verdict.cells.begin(), verdict.cells.end(), [&](const GateCell& a, const GateCell& b) {
    const auto pa = position.find(a.key), pb = position.find(b.key);
    return (pa == position.end() ? position.size() : pa->second) <
           (pb == position.end() ? position.size() : pb->second);
  });
  const std::set<std::string> warnings(merged.conditions.warnings.begin(), merged.conditions.warnings.end());
  verdict.warnings.assign(warnings.begin(), warnings.end());
  verdict.notes.push_back(fmt::format(
      "Merged from {} shards: every cell judged again here from the shards' measurements, by the rules on merge's "
      "command line (the shards' gate.json files were checked to agree, never copied); a regression is confirmed "
      "on the second run of the shard that measured both its sides.",
      shards.size()));
  verdict.notes.insert(verdict.notes.end(), shard_notes.begin(), shard_notes.end());
  recount(verdict);
  return verdict;
}

}  // namespace abench
