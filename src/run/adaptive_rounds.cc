#include "src/run/adaptive_rounds.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "src/verdict/pairing.h"
#include "src/stats/rank_intervals.h"
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
double figure_interval_width(const CellRecord& cell, double confidence) {
  std::vector<double> logs;
  for (const auto& p : cell.processes) {
    if (!(p.median_ns_per_op > 0) || !std::isfinite(p.median_ns_per_op)) return kUnreached;
    logs.push_back(std::log(p.median_ns_per_op));
  }
  if (logs.empty()) return kUnreached;
  const ShiftInterval interval = sign_interval(logs, confidence);
  if (!interval.reached) return kUnreached;
  return std::exp(interval.high - interval.estimate) - std::exp(interval.low - interval.estimate);
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

std::optional<double> interval_width(const RunResults& results, int id, double confidence) {
  const CellRecord& cell = results.cells[static_cast<std::size_t>(id)];
  if (results.plan.partner.empty()) {
    if (!measured(cell)) return std::nullopt;
    return figure_interval_width(cell, confidence);
  }
  const CellRecord& partner = results.cells[static_cast<std::size_t>(results.plan.partner[static_cast<std::size_t>(id)])];
  if (!measured(cell) || !measured(partner)) return std::nullopt;
  const Judgement j = judge_change(pair_in_run(results, cell, partner).sides(), confidence, 0);
  if (j.coverage < confidence || !std::isfinite(j.low) || !std::isfinite(j.high)) return kUnreached;
  return j.high - j.low;
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
    const CellRecord& partner = results.cells[static_cast<std::size_t>(results.plan.partner[static_cast<std::size_t>(id)])];
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

}  // namespace

void run_adaptive_rounds(RunResults& results, const IntervalTarget& target, WorkerLauncher& launcher,
                         const OrchestratorHooks& hooks,
                         const std::function<void(const std::vector<Job>&, std::size_t cells)>& on_round) {
  if (const std::vector<Job> completing = jobs_completing_pairs(results); !completing.empty())
    run_jobs(results, completing, launcher, hooks);
  while (interrupt_signal() == 0) {
    const std::vector<int> cells = cells_needing_a_round(results, target);
    if (cells.empty()) return;
    // Cells can stand at different rounds (a resumed run); each gets its own next round, and
    // cells of one round go together so a round's processes are launched side by side.
    int lowest = target.max_rounds;
    for (int id : cells) lowest = std::min(lowest, rounds_of_cell(results.cells[static_cast<std::size_t>(id)]));
    std::vector<int> this_round;
    for (int id : cells)
      if (rounds_of_cell(results.cells[static_cast<std::size_t>(id)]) == lowest) this_round.push_back(id);
    const std::vector<Job> jobs = round_jobs_for_cells(results.plan, results.protocol.seed, lowest, this_round);
    on_round(jobs, this_round.size());
    run_jobs(results, jobs, launcher, hooks);
    // A round that gave none of its cells a process (every worker lost before measuring)
    // would be asked for again and again.
    if (std::none_of(this_round.begin(), this_round.end(), [&](int id) {
          return rounds_of_cell(results.cells[static_cast<std::size_t>(id)]) > lowest;
        }))
      return;
  }
}

}  // namespace abench
