#include "src/plan/shard.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/plan/cost.h"

namespace abench {

ShardSpec parse_shard(const std::string& text, const std::string& option) {
  const std::size_t slash = text.find('/');
  auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 4 || part.find_first_not_of("0123456789") != std::string::npos) return -1;
    return std::stoi(part);
  };
  const int k = slash == std::string::npos ? -1 : number(text.substr(0, slash));
  const int n = slash == std::string::npos ? -1 : number(text.substr(slash + 1));
  if (k < 1 || n < 1 || k > n || n > kMaxShards)
    throw UsageError(fmt::format("option {}: '{}' is not a shard (allowed: K/N with 1 <= K <= N <= {}, e.g. 2/4)",
                                 option, text, kMaxShards));
  return {k, n};
}

std::vector<int> shard_of_positions(const Plan& plan, const RunProtocol& protocol, int count) {
  const std::size_t variants = std::max<std::size_t>(plan.variants.size(), 1);
  const std::size_t positions = plan.cells.size() / variants;
  std::vector<double> cost(positions, 0);
  for (const PlannedCell& cell : plan.cells)
    cost[static_cast<std::size_t>(cell.spec.id) % positions] += expected_cell_seconds(cell.spec, protocol);
  std::vector<std::size_t> order(positions);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost[a] > cost[b]; });
  std::vector<double> load(static_cast<std::size_t>(count), 0);
  std::vector<int> shard(positions, 0);
  for (std::size_t position : order) {
    const auto lightest = std::min_element(load.begin(), load.end());  // the first of equals
    shard[position] = static_cast<int>(lightest - load.begin());
    *lightest += cost[position];
  }
  return shard;
}

Plan shard_plan(Plan plan, const RunProtocol& protocol, ShardSpec spec) {
  const std::vector<int> shard_of = shard_of_positions(plan, protocol, spec.count);
  const std::size_t positions = shard_of.size();
  PlanShard shard{spec.index, spec.count, plan.cells.size(), {}, 0, 0};
  std::vector<int> new_id(plan.cells.size(), -1);
  std::vector<PlannedCell> cells;
  for (const PlannedCell& cell : plan.cells) {
    const double cost = expected_cell_seconds(cell.spec, protocol);
    shard.plan_expected_s += cost;
    if (positions == 0 || shard_of[static_cast<std::size_t>(cell.spec.id) % positions] != spec.index - 1) continue;
    shard.expected_s += cost;
    new_id[static_cast<std::size_t>(cell.spec.id)] = static_cast<int>(cells.size());
    shard.plan_ids.push_back(cell.spec.id);
    PlannedCell kept = cell;
    kept.spec.id = static_cast<int>(cells.size());
    cells.push_back(kept);
  }
  std::vector<int> partner;
  if (!plan.partner.empty())
    for (int id : shard.plan_ids)
      partner.push_back(new_id[static_cast<std::size_t>(plan.partner[static_cast<std::size_t>(id)])]);
  std::vector<Job> jobs;
  for (Job job : plan.jobs) {
    std::vector<int> ids;
    for (int id : job.cell_ids)
      if (new_id[static_cast<std::size_t>(id)] >= 0) ids.push_back(new_id[static_cast<std::size_t>(id)]);
    if (ids.empty()) continue;
    job.cell_ids = std::move(ids);
    jobs.push_back(std::move(job));
  }
  plan.cells = std::move(cells);
  plan.partner = std::move(partner);
  plan.jobs = std::move(jobs);
  plan.shard = std::move(shard);
  return plan;
}

}  // namespace abench
