// Sharding a plan (src/plan/shard.h): the N shards of a plan are disjoint, cover it exactly,
// keep a cell's variants together, balance expected cost, and remap jobs and partners.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "src/util/errors.h"
#include "src/plan/shard.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

using testing::small_matrix;

// A matrix of 2 workloads x 4 sizes x 3 live counts = 24 cells a variant.
Matrix wide_matrix(std::vector<std::string> backends) {
  Matrix m = small_matrix(std::move(backends), 3, {64, 4096, 65536, 1 << 20}, {1, 16, 64});
  m.protocol.counts = true;  // counting runs make costs differ by footprint
  return m;
}

// For every shard of `plan`: the whole plan's ids of its cells.
std::vector<std::vector<int>> shard_ids(const Plan& plan, const RunProtocol& protocol, int count) {
  std::vector<std::vector<int>> ids;
  for (int k = 1; k <= count; ++k) ids.push_back(shard_plan(plan, protocol, {k, count}).shard->plan_ids);
  return ids;
}

void expect_partition(const Plan& plan, const RunProtocol& protocol, int count) {
  const auto shards = shard_ids(plan, protocol, count);
  std::vector<int> all;
  for (const auto& ids : shards) all.insert(all.end(), ids.begin(), ids.end());
  std::sort(all.begin(), all.end());
  std::vector<int> expected(plan.cells.size());
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(all, expected) << count << " shards: every cell exactly once";
  // All variants of a cell position in one shard.
  const std::size_t per_variant = plan.cells.size() / plan.variants.size();
  for (const auto& ids : shards) {
    const std::set<int> in(ids.begin(), ids.end());
    for (int id : ids)
      for (std::size_t v = 0; v < plan.variants.size(); ++v)
        EXPECT_TRUE(in.contains(static_cast<int>(v * per_variant + static_cast<std::size_t>(id) % per_variant)))
            << "cell " << id << " without its variant " << v;
  }
}

TEST(Shard, ShardsOfARunAreDisjointAndCoverItForManyCounts) {
  const Matrix m = wide_matrix({"system", "mimalloc", "jemalloc"});
  const Plan plan = make_plan(m, 5);
  for (int n : {1, 2, 3, 4, 7, 24, 25, 100}) expect_partition(plan, m.protocol, n);
}

TEST(Shard, MoreShardsThanCellPositionsLeaveTheRestEmpty) {
  const Matrix m = small_matrix({"system"}, 2);  // 4 cells
  const Plan plan = make_plan(m, 1);
  const auto shards = shard_ids(plan, m.protocol, 10);
  EXPECT_EQ(std::count_if(shards.begin(), shards.end(), [](const auto& ids) { return ids.empty(); }), 6);
  const Plan empty = shard_plan(plan, m.protocol, {10, 10});
  EXPECT_TRUE(empty.cells.empty());
  EXPECT_TRUE(empty.jobs.empty());
  EXPECT_EQ(empty.shard->plan_cells, 4u);
}

TEST(Shard, BothSidesOfACompareCellAreInOneShardAndStayPartners) {
  Matrix m = wide_matrix({"system"});
  m.protocol.fresh_process_per_cell = m.protocol.interleave_batches = true;
  Variant base, cand;
  cand.name = "again";
  const Plan plan = make_compare_plan(m, {base}, {cand}, 9);
  for (int n : {1, 3, 5, 30}) expect_partition(plan, m.protocol, n);
  const Plan shard = shard_plan(plan, m.protocol, {2, 3});
  ASSERT_EQ(shard.partner.size(), shard.cells.size());
  for (const PlannedCell& cell : shard.cells) {
    const int partner = shard.partner[static_cast<std::size_t>(cell.spec.id)];
    ASSERT_GE(partner, 0);
    const PlannedCell& other = shard.cells[static_cast<std::size_t>(partner)];
    EXPECT_NE(other.variant, cell.variant);
    EXPECT_EQ(other.spec.size, cell.spec.size);
    EXPECT_EQ(other.spec.live, cell.spec.live);
    EXPECT_EQ(other.spec.workload, cell.spec.workload);
    // The partner in the whole plan is the same cell.
    EXPECT_EQ(plan.partner[static_cast<std::size_t>(shard.shard->plan_ids[static_cast<std::size_t>(cell.spec.id)])],
              shard.shard->plan_ids[static_cast<std::size_t>(partner)]);
  }
}

TEST(Shard, JobsKeepTheirRoundsAndSeedsAndRunOnlyTheShardsCells) {
  Matrix m = wide_matrix({"system", "mimalloc"});
  const Plan plan = make_plan(m, 11);
  const Plan shard = shard_plan(plan, m.protocol, {1, 4});
  std::map<std::pair<int, std::size_t>, std::uint64_t> seeds;  // (round, variant) of timed jobs
  for (const Job& job : plan.jobs)
    if (job.mode == WorkerMode::time) seeds[{job.round, job.variant}] = job.seed;
  std::multiset<std::pair<int, int>> measured;  // (cell, round)
  std::size_t counting = 0;
  for (const Job& job : shard.jobs) {
    ASSERT_FALSE(job.cell_ids.empty());
    for (int id : job.cell_ids) {
      ASSERT_LT(static_cast<std::size_t>(id), shard.cells.size());
      EXPECT_EQ(shard.cells[static_cast<std::size_t>(id)].variant, job.variant);
      if (job.mode == WorkerMode::time) measured.insert({id, job.round});
    }
    if (job.mode == WorkerMode::count)
      ++counting;
    else
      EXPECT_EQ(job.seed, (seeds[{job.round, job.variant}]));
  }
  EXPECT_EQ(counting, shard.cells.size());
  for (std::size_t id = 0; id < shard.cells.size(); ++id) {
    EXPECT_EQ(shard.cells[id].spec.id, static_cast<int>(id));
    for (int round = 0; round < m.protocol.processes; ++round)
      EXPECT_EQ(measured.count({static_cast<int>(id), round}), 1u);
  }
}

TEST(Shard, ShardsAreBalancedByExpectedCost) {
  const Matrix m = wide_matrix({"system", "mimalloc"});
  const Plan plan = make_plan(m, 3);
  for (int n : {2, 3, 5}) {
    double heaviest = 0, lightest = 1e300, total = 0, largest_position = 0;
    for (int k = 1; k <= n; ++k) {
      const Plan shard = shard_plan(plan, m.protocol, {k, n});
      heaviest = std::max(heaviest, shard.shard->expected_s);
      lightest = std::min(lightest, shard.shard->expected_s);
      total += shard.shard->expected_s;
      EXPECT_DOUBLE_EQ(shard.shard->plan_expected_s, shard_plan(plan, m.protocol, {1, 1}).shard->expected_s);
    }
    for (const PlannedCell& cell : plan.cells)
      largest_position = std::max(largest_position, 2 * expected_cell_seconds(cell.spec, m.protocol));
    EXPECT_NEAR(total, shard_plan(plan, m.protocol, {1, 1}).shard->expected_s, 1e-9);
    // Greedy by cost: no shard is more than one cell position over the lightest.
    EXPECT_LE(heaviest - lightest, largest_position) << n << " shards";
  }
  // The cost follows the protocol: longer batches, more samples and processes cost more.
  CellSpec cell;
  cell.size = 64;
  RunProtocol p = m.protocol, longer = p;
  longer.min_batch_ms *= 2;
  EXPECT_GT(expected_cell_seconds(cell, longer), expected_cell_seconds(cell, p));
  longer = p;
  longer.processes *= 2;
  EXPECT_GT(expected_cell_seconds(cell, longer), expected_cell_seconds(cell, p));
  CellSpec large = cell;
  large.size = 1 << 20;
  large.live = 64;
  EXPECT_GT(expected_cell_seconds(large, p), expected_cell_seconds(cell, p));  // its counting run
}

TEST(Shard, ThePartitionIsTheSameForEverySeed) {
  const Matrix m = wide_matrix({"system", "mimalloc"});
  EXPECT_EQ(shard_ids(make_plan(m, 1), m.protocol, 3), shard_ids(make_plan(m, 987654321), m.protocol, 3));
}

TEST(Shard, ParsesKOverNAndRefusesAnythingElse) {
  EXPECT_EQ(parse_shard("2/4", "--shard").index, 2);
  EXPECT_EQ(parse_shard("2/4", "--shard").count, 4);
  EXPECT_EQ(parse_shard("1/1", "--shard").count, 1);
  for (const char* bad : {"0/3", "4/3", "3", "/3", "1/", "a/b", "1/0", "-1/3", "1/3/5", "1/1001", "1 /3", ""}) {
    try {
      parse_shard(bad, "--shard");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("allowed: K/N"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace abench
