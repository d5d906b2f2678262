#include "src/verdict/pairing.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {
namespace {

std::vector<int> rounds_of(const CellRecord& record) {
  std::vector<int> rounds;
  for (const auto& p : record.processes) rounds.push_back(p.round);
  return rounds;
}

// --layouts: the rounds at one layout ran the same copies of the files, whose placement is
// part of what a layout is, so they are not independent draws of it: the rule pairs the
// layouts, each side's samples at a layout those of its rounds there, in round order (so
// that samples taken in turn stay index by index). Unchanged unless every process has a layout.
void pool_by_layout(const CellRecord& record, ProcessSamples& samples, std::vector<int>& rounds) {
  std::map<int, std::vector<const ProcessMeasurement*>> by_layout;
  for (const ProcessMeasurement& p : record.processes) {
    if (!p.layout || p.layout->index < 0) return;
    by_layout[p.layout->index].push_back(&p);
  }
  samples.clear(), rounds.clear();
  for (auto& [index, processes] : by_layout) {
    std::sort(processes.begin(), processes.end(), [](auto* a, auto* b) { return a->round < b->round; });
    std::vector<double> pooled;
    for (const ProcessMeasurement* p : processes)
      pooled.insert(pooled.end(), p->sample_ns_per_op.begin(), p->sample_ns_per_op.end());
    samples.push_back(std::move(pooled));
    rounds.push_back(index);
  }
}

// A time or a count per operation is a positive finite number; anything else means it was
// not measured (or was edited), and a change computed from it (+inf%, -nan%) must not pass
// or fail anything.
std::string unjudgeable_figure(const CellPair& pair) {
  for (const auto* side : {&pair.before, &pair.after})
    for (const auto& process : *side)
      for (double figure : process)
        if (!std::isfinite(figure) || figure <= 0)
          return fmt::format("the {} holds {} {}: only positive finite figures can be judged",
                             side == &pair.before ? "baseline" : "candidate", figure, pair.metric);
  return "";
}

// The guards, once: a pair is judged only when both sides measured every process.
std::string problem_of(const CellPair& pair) {
  const CellSummary& b = pair.before_summary;
  const CellSummary& a = pair.after_summary;
  if (b.status != CellStatus::ok || a.status != CellStatus::ok) {
    std::string problem = b.status != CellStatus::ok ? "baseline: " + b.error : "candidate: " + a.error;
    if (problem.size() < 12) problem += "not measured";
    return problem;
  }
  if (pair.before.empty() || pair.after.empty()) return "no samples";
  return unjudgeable_figure(pair);
}

CellPair pair_of(const RunResults& baseline, const CellRecord& before, const RunResults& candidate,
                 const CellRecord& after, bool one_run) {
  CellPair pair;
  pair.key = cell_key(baseline, before);
  pair.workload = std::string(name_of(before.cell.spec.workload));
  pair.metric = metric_names(baseline.protocol.measure).per_op;
  pair.instructions = row_of(baseline.protocol.measure).exact;
  pair.before = samples_of(before);
  pair.after = samples_of(after);
  if (one_run) {
    pair.before_rounds = rounds_of(before);
    pair.after_rounds = rounds_of(after);
    pair.samples_paired = baseline.protocol.interleave_batches && candidate.protocol.interleave_batches;
    if (baseline.protocol.layouts > 0) {
      pool_by_layout(before, pair.before, pair.before_rounds);
      pool_by_layout(after, pair.after, pair.after_rounds);
    }
  }
  pair.before_cell = &before;
  pair.after_cell = &after;
  pair.before_summary = before.summary;
  pair.after_summary = after.summary;
  pair.variant_pair = before.cell.variant / 2;
  pair.problem = problem_of(pair);
  return pair;
}

}  // namespace

CellPair pair_in_run(const RunResults& results, const CellRecord& before, const CellRecord& after) {
  return pair_of(results, before, results, after, true);
}

std::vector<CellPair> pair_sides(const RunResults& results) {
  std::vector<CellPair> pairs;
  if (results.plan.partner.size() != results.cells.size()) return pairs;  // a run's cells have no sides
  for (const CellRecord& before : results.cells) {
    if (before.cell.variant % 2 != 0) continue;
    const CellRecord& after =
        results.cells[static_cast<std::size_t>(results.plan.partner[static_cast<std::size_t>(before.cell.spec.id)])];
    pairs.push_back(pair_in_run(results, before, after));
  }
  return pairs;
}

std::vector<CellPair> pair_results(const RunResults& baseline, const std::string& baseline_path,
                                   const RunResults& candidate, const std::string& candidate_path) {
  auto side_of = [](const RunResults& r, const std::string& path, const char* excluded) {
    std::map<std::string, const CellRecord*> cells;
    for (const CellRecord& c : r.cells) {
      if (abench::side_of(r, c) == excluded) continue;
      const std::string key = cell_key(r, c);
      if (!cells.emplace(key, &c).second)
        throw UsageError(
            fmt::format("{}: cell {} appears twice (several variants of one backend and policy); "
                        "gate a compare with `abench compare --gate`",
                        path, key));
    }
    return cells;
  };
  const auto before = side_of(baseline, baseline_path, "candidate");
  const auto after = side_of(candidate, candidate_path, "baseline");
  std::vector<std::string> only_before, only_after;
  for (const auto& [key, cell] : before)
    if (!after.contains(key)) only_before.push_back(key);
  for (const auto& [key, cell] : after)
    if (!before.contains(key)) only_after.push_back(key);
  if (!only_before.empty() || !only_after.empty())
    throw UsageError(
        fmt::format("incompatible matrices: {} cells of the baseline {} are not in the candidate {}{}, and {} of the "
                    "candidate not in the baseline{}; gate results of the same matrix",
                    only_before.size(), baseline_path, candidate_path,
                    only_before.empty() ? "" : " (first: " + only_before.front() + ")", only_after.size(),
                    only_after.empty() ? "" : " (first: " + only_after.front() + ")"));
  if (baseline.protocol.measure != candidate.protocol.measure)
    throw UsageError(fmt::format("{} measured {} and {} measured {}: gate like with like", baseline_path,
                                 metric_names(baseline.protocol.measure).per_op, candidate_path,
                                 metric_names(candidate.protocol.measure).per_op));
  // Rounds pair only within one run (files before run ids: one start time).
  const bool one_run = baseline.run_id.empty() && candidate.run_id.empty()
                           ? !baseline.started_at.empty() && baseline.started_at == candidate.started_at
                           : baseline.run_id == candidate.run_id;
  std::vector<CellPair> pairs;
  for (const auto& [key, b] : before) {
    CellPair pair = pair_of(baseline, *b, candidate, *after.at(key), one_run);
    if (!pair.both_refused()) pairs.push_back(std::move(pair));  // neither side could measure it
  }
  return pairs;
}

void require_distinct_keys(const std::vector<CellPair>& pairs, const std::string& where) {
  std::set<std::string> keys;
  for (const CellPair& pair : pairs)
    if (!keys.insert(pair.key).second)
      throw UsageError(
          fmt::format("{}: cell {} appears twice (several variants of one backend and policy): the "
                      "gate finds thresholds, noise floors and confirmations by cell; gate one "
                      "variant of each backend and policy at a time",
                      where, pair.key));
}

void pool_rounds(RunResults& results, const RunResults& more) {
  int last = 0;
  for (const CellRecord& cell : results.cells)
    for (const ProcessMeasurement& p : cell.processes) last = std::max(last, p.round + 1);
  for (std::size_t i = 0; i < results.cells.size() && i < more.cells.size(); ++i) {
    CellRecord& cell = results.cells[i];
    const CellRecord& extra = more.cells[i];
    for (ProcessMeasurement p : extra.processes) {
      p.round += last;
      cell.processes.push_back(std::move(p));
    }
    cell.failures.insert(cell.failures.end(), extra.failures.begin(), extra.failures.end());
    resummarize(cell, results.protocol);
  }
}

}  // namespace abench
