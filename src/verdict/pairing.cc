#include "src/verdict/pairing.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {

std::vector<GatePair> pair_results(const StoredResults& baseline, const StoredResults& candidate) {
  auto side_of = [](const StoredResults& r, const char* excluded) {
    std::map<std::string, const StoredCell*> cells;
    for (const StoredCell& c : r.cells) {
      if (c.side == excluded) continue;
      if (!cells.emplace(c.key, &c).second)
        throw UsageError(fmt::format("{}: cell {} appears twice (several variants of one backend and policy); "
                                     "gate a compare with `abench compare --gate`", r.path, c.key));
    }
    return cells;
  };
  const auto before = side_of(baseline, "candidate"), after = side_of(candidate, "baseline");
  std::vector<std::string> only_before, only_after;
  for (const auto& [key, cell] : before)
    if (!after.contains(key)) only_before.push_back(key);
  for (const auto& [key, cell] : after)
    if (!before.contains(key)) only_after.push_back(key);
  if (!only_before.empty() || !only_after.empty())
    throw UsageError(fmt::format(
        "incompatible matrices: {} cells of the baseline {} are not in the candidate {}{}, and {} of the "
        "candidate not in the baseline{}; gate results of the same matrix", only_before.size(), baseline.path,
        candidate.path, only_before.empty() ? "" : " (first: " + only_before.front() + ")", only_after.size(),
        only_after.empty() ? "" : " (first: " + only_after.front() + ")"));
  std::vector<GatePair> pairs;
  for (const auto& [key, b] : before) {
    const StoredCell* a = after.at(key);
    if (b->status == "refused" && a->status == "refused") continue;  // neither side could measure it
    GatePair pair;
    pair.key = key;
    pair.workload = key.substr(key.find('/', key.find('/') + 1) + 1);
    pair.workload = pair.workload.substr(0, pair.workload.find('/'));
    pair.metric = b->metric;
    pair.instructions = b->metric == "instructions_per_op";
    if (b->metric != a->metric)
      throw UsageError(fmt::format("{} measured {} and {} measured {}: gate like with like", baseline.path,
                                   b->metric, candidate.path, a->metric));
    pair.before = b->samples;
    pair.after = a->samples;
    const bool one_run = baseline.run_id.empty() && candidate.run_id.empty()
                             ? !baseline.started_at.empty() && baseline.started_at == candidate.started_at
                             : baseline.run_id == candidate.run_id;
    if (one_run) {
      pair.before_rounds = b->rounds;
      pair.after_rounds = a->rounds;
      pair.samples_paired = baseline.interleave_batches && candidate.interleave_batches;
    }
    if (b->status != "ok") pair.problem = "baseline cell " + b->status;
    if (a->status != "ok") pair.problem = "candidate cell " + a->status;
    pairs.push_back(std::move(pair));
  }
  return pairs;
}

void pool_rounds(StoredResults& results, const StoredResults& more) {
  int last = 0;
  for (const StoredCell& cell : results.cells)
    for (int round : cell.rounds) last = std::max(last, round);
  for (const StoredCell& extra : more.cells)
    for (StoredCell& cell : results.cells)
      if (cell.key == extra.key && cell.side == extra.side) {
        cell.samples.insert(cell.samples.end(), extra.samples.begin(), extra.samples.end());
        for (int round : extra.rounds) cell.rounds.push_back(last + round);
        if (extra.status == "failed") cell.status = "failed";  // a confirmation that crashed is no confirmation
      }
}

}  // namespace abench
