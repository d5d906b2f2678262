#include "src/run/adaptive_rounds.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <set>

#include "src/verdict/pairing.h"
#include "src/stats/rank_intervals.h"
#include "src/stats/statistics.h"
#include "src/util/interrupt.h"

namespace abench {

bool needs_another_round(double width, int rounds, const IntervalTarget& target) {
  return rounds < target.max_rounds && !(width <= target.width);
}

namespace {

constexpr double kUnreached = std::numeric_limits<double>::infinity();

bool measured(const CellRecord& cell) {
  const CellStatus status = cell.summary.status;
  return status == CellStatus::ok || status == CellStatus::partial;
}

// A run cell's figure: the sign test's interval for the median of its process medians, on
// a log scale, as a fraction of the estimate.
IntervalNow figure_interval(const CellRecord& cell, double confidence) {
  std::vector<double> logs;
  for (const auto& p : cell.processes) {
    if (!(p.median_ns_per_op > 0) || !std::isfinite(p.median_ns_per_op)) return {kUnreached, 0};
    logs.push_back(std::log(p.median_ns_per_op));
  }
  if (logs.empty()) return {kUnreached, 0};
  const ShiftInterval interval = sign_interval(logs, confidence);
  const double spread = robust_spread(logs);
  if (!interval.reached) return {kUnreached, spread};
  return {std::exp(interval.high - interval.estimate) - std::exp(interval.low - interval.estimate), spread};
}

std::set<int> rounds_measured(const CellRecord& cell) {
  std::set<int> rounds;
  for (const auto& p : cell.processes) rounds.insert(p.round);
  return rounds;
}

// The number of the round a cell would get next (rounds count from 0).
int rounds_of_cell(const CellRecord& cell) {
  const std::set<int> rounds = rounds_measured(cell);
  return rounds.empty() ? 0 : *rounds.rbegin() + 1;
}

}  // namespace

std::optional<IntervalNow> interval_now(const RunResults& results, int id, double confidence) {
  const CellRecord& cell = results.cells[static_cast<std::size_t>(id)];
  if (results.plan.partner.empty()) {
    if (!measured(cell)) return std::nullopt;
    return figure_interval(cell, confidence);
  }
  const CellRecord& partner =
      results.cells[static_cast<std::size_t>(results.plan.partner[static_cast<std::size_t>(id)])];
  if (!measured(cell) || !measured(partner)) return std::nullopt;
  const Judgement j = judge_change(pair_in_run(results, cell, partner).sides(), confidence, 0);
  if (j.coverage < confidence || !std::isfinite(j.low) || !std::isfinite(j.high))
    return IntervalNow{kUnreached, j.spread};
  return IntervalNow{j.high - j.low, j.spread};
}

std::optional<double> interval_width(const RunResults& results, int id, double confidence) {
  const std::optional<IntervalNow> now = interval_now(results, id, confidence);
  return now ? std::optional<double>(now->width) : std::nullopt;
}

std::vector<int> cells_needing_a_round(const RunResults& results, const IntervalTarget& target) {
  std::vector<int> cells;
  const bool paired = !results.plan.partner.empty();
  for (const CellRecord& cell : results.cells) {
    if (paired && cell.cell.variant % 2 != 0) continue;
    const int id = cell.cell.spec.id;
    const std::optional<double> width = interval_width(results, id, target.confidence);
    if (width && needs_another_round(*width, rounds_of_cell(cell), target)) cells.push_back(id);
  }
  return cells;
}

namespace {

// A compare interrupted between the two reports of a paced pair kept one side's process of
// that round: the other side's, run now, pairs it again (as --resume does for the plan's rounds).
std::vector<Job> jobs_completing_pairs(const RunResults& results) {
  std::vector<Job> jobs;
  if (results.plan.partner.empty()) return jobs;
  for (const CellRecord& cell : results.cells) {
    if (cell.cell.variant % 2 != 0) continue;
    const int id = cell.cell.spec.id;
    const CellRecord& partner =
        results.cells[static_cast<std::size_t>(results.plan.partner[static_cast<std::size_t>(id)])];
    if (!measured(cell) || !measured(partner)) continue;
    const std::set<int> before = rounds_measured(cell), after = rounds_measured(partner);
    auto complete = [&](const std::set<int>& have, const std::set<int>& lacking, int lacking_cell) {
      for (int round : have)
        if (!lacking.contains(round))
          for (const Job& job : round_jobs_for_cells(results.plan, results.protocol.seed, round, {id}))
            if (job.cell_ids.front() == lacking_cell) jobs.push_back(job);
    };
    complete(before, after, partner.cell.spec.id);
    complete(after, before, id);
  }
  return jobs;
}

// The mean seconds a timed process of the cell took, from launch to exit (0: none yet).
double mean_process_seconds(const RunResults& results, int id) {
  double sum = 0;
  int count = 0;
  for (const WorkerRecord& w : results.workers)
    if (w.job.mode == WorkerMode::time && w.wall_s > 0 && w.job.cell_ids.size() == 1 && w.job.cell_ids.front() == id) {
      sum += w.wall_s;
      ++count;
    }
  return count ? sum / count : 0;
}

// One more round of the cell: its process, or a pair's two (side by side when paced).
double round_seconds(const RunResults& results, int id) {
  const double own = mean_process_seconds(results, id);
  if (results.plan.partner.empty()) return own;
  const double partner = mean_process_seconds(results, results.plan.partner[static_cast<std::size_t>(id)]);
  return results.protocol.interleave_batches ? std::max(own, partner) : own + partner;
}

std::vector<RoundCandidate> candidates_of(const RunResults& results, const std::vector<int>& cells, double confidence) {
  std::vector<RoundCandidate> candidates;
  double known = 0;
  int with_cost = 0;
  for (int id : cells) {
    const CellRecord& cell = results.cells[static_cast<std::size_t>(id)];
    RoundCandidate c{id, rounds_of_cell(cell), interval_now(results, id, confidence).value_or(IntervalNow{}).spread,
                     round_seconds(results, id)};
    if (c.round_seconds > 0) {
      known += c.round_seconds;
      ++with_cost;
    }
    candidates.push_back(c);
  }
  // A cell none of whose processes finished costs what the others do on average.
  for (RoundCandidate& c : candidates)
    if (c.round_seconds <= 0) c.round_seconds = with_cost ? known / with_cost : 1;
  return candidates;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int rounds_to_reach(double spread, int rounds, double target, double confidence) {
  if (!(spread > 0) || !std::isfinite(spread) || !(target > 0)) return 1;
  const double reach = 2 * normal_quantile((1 + confidence) / 2) * std::sqrt(std::numbers::pi / 2) * spread / target;
  return static_cast<int>(std::clamp(std::ceil(reach * reach - rounds), 1.0, 1e6));
}

std::vector<int> cells_within_budget(const std::vector<RoundCandidate>& candidates, double target, double confidence,
                                     double seconds_left) {
  std::vector<std::pair<double, std::size_t>> by_cost;
  for (std::size_t k = 0; k < candidates.size(); ++k) {
    const RoundCandidate& c = candidates[k];
    by_cost.emplace_back(rounds_to_reach(c.spread, c.rounds, target, confidence) * c.round_seconds, k);
  }
  std::stable_sort(by_cost.begin(), by_cost.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> chosen;
  double committed = 0;
  for (const auto& [cost, k] : by_cost) {
    if (committed + cost > seconds_left) break;
    committed += cost;
    chosen.push_back(k);
  }
  // None expected to get there in time: the time left still buys rounds, for the cells
  // nearest to it, as many as one round of each fits (the estimate is redone every round).
  if (chosen.empty())
    for (const auto& [cost, k] : by_cost) {
      if (committed + candidates[k].round_seconds > seconds_left) continue;
      committed += candidates[k].round_seconds;
      chosen.push_back(k);
    }
  std::sort(chosen.begin(), chosen.end());
  std::vector<int> cells;
  for (std::size_t k : chosen) cells.push_back(candidates[k].cell);
  return cells;
}

std::size_t cells_left_wide(const RunResults& results, const IntervalTarget& target) {
  IntervalTarget uncapped = target;
  uncapped.max_rounds = std::numeric_limits<int>::max();
  return cells_needing_a_round(results, uncapped).size();
}

void run_adaptive_rounds(RunResults& results, const IntervalTarget& target, WorkerLauncher& launcher,
                         const OrchestratorHooks& hooks, std::chrono::steady_clock::time_point started,
                         const std::function<void(const RoundAnnouncement&)>& on_round) {
  if (const std::vector<Job> completing = jobs_completing_pairs(results); !completing.empty())
    run_jobs(results, completing, launcher, hooks);
  while (interrupt_signal() == 0) {
    std::vector<int> cells = cells_needing_a_round(results, target);
    if (cells.empty()) return;
    const std::size_t unresolved = cells_left_wide(results, target);
    double seconds_left = -1;
    if (target.budget_s > 0) {
      seconds_left = std::max(0.0, target.budget_s - seconds_since(started));
      cells = cells_within_budget(candidates_of(results, cells, target.confidence), target.width, target.confidence,
                                  seconds_left);
      if (cells.empty()) return;  // none expected to reach the width in the time left
    }
    // Cells can stand at different rounds (a resumed run); each gets its own next round, and
    // cells of one round go together so a round's processes are launched side by side.
    int lowest = target.max_rounds;
    for (int id : cells) lowest = std::min(lowest, rounds_of_cell(results.cells[static_cast<std::size_t>(id)]));
    std::vector<int> this_round;
    for (int id : cells)
      if (rounds_of_cell(results.cells[static_cast<std::size_t>(id)]) == lowest) this_round.push_back(id);
    const std::vector<Job> jobs = round_jobs_for_cells(results.plan, results.protocol.seed, lowest, this_round);
    on_round({jobs, this_round.size(), unresolved, seconds_left});
    run_jobs(results, jobs, launcher, hooks);
    // A round that gave none of its cells a process (every worker lost before measuring)
    // would be asked for again and again.
    if (std::none_of(this_round.begin(), this_round.end(),
                     [&](int id) { return rounds_of_cell(results.cells[static_cast<std::size_t>(id)]) > lowest; }))
      return;
  }
}

}  // namespace abench
