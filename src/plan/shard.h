// Splitting one plan over several machines (`--shard K/N`, docs/ci.md): the cells of the
// plan are dealt into N shards by their expected cost, the same way on every runner for
// the same matrix and protocol, and `abench merge` joins the shards' results again.
//
// The unit dealt is a cell position: one workload x size x alignment x live count with
// every variant's cell at it. So a compare's two sides of a cell, and a run's backends of
// a cell, are always measured in one shard, on one machine, in the same rounds.
#pragma once

#include <string>
#include <vector>

#include "src/plan/matrix.h"
#include "src/plan/plan.h"
#include "src/plan/cost.h"

namespace abench {

struct ShardSpec {
  int index = 1;  // K, from 1
  int count = 1;  // N
};

// "K/N" with 1 <= K <= N <= kMaxShards; UsageError naming `option` otherwise.
ShardSpec parse_shard(const std::string& text, const std::string& option);
inline constexpr int kMaxShards = 1000;

// The shard (0-based) of every cell position of the plan: largest expected cost first,
// each to the shard with the least so far (ties to the lowest shard and position), so the
// partition depends on the plan alone.
std::vector<int> shard_of_positions(const Plan& plan, const RunProtocol& protocol, int count);

// The plan restricted to shard K: its cells renumbered from 0 in plan order, partners and
// jobs remapped (jobs keep their rounds and seeds; jobs left without cells are dropped),
// and plan.shard saying which cells of the whole plan they are.
Plan shard_plan(Plan plan, const RunProtocol& protocol, ShardSpec shard);

}  // namespace abench
