#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "src/util/errors.h"
#include "src/plan/plan.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

using testing::small_matrix;

std::vector<std::string> launch_order(const Plan& plan) {
  std::vector<std::string> order;
  for (const Job& job : plan.jobs) order.push_back(plan.variants[job.variant].backend);
  return order;
}

TEST(Plan, ExpandsEveryCellOfEveryVariant) {
  Matrix m = small_matrix({"system", "mimalloc"}, 3);
  m.policies = {Policy::exact, Policy::padded};
  const Plan plan = make_plan(m, 1);
  ASSERT_EQ(plan.variants.size(), 4u);
  EXPECT_EQ(plan.cells.size(), 4u * 4u);
  for (std::size_t i = 0; i < plan.cells.size(); ++i) {
    EXPECT_EQ(plan.cells[i].spec.id, static_cast<int>(i));
    EXPECT_EQ(plan.cells[i].spec.policy, plan.variants[plan.cells[i].variant].policy);
  }
}

TEST(Plan, TwoVariantsAlternateFromRoundToRound) {
  const Plan plan = make_plan(small_matrix({"system", "mimalloc"}, 4), 1);
  EXPECT_EQ(launch_order(plan), (std::vector<std::string>{"system", "mimalloc", "mimalloc", "system", "system",
                                                          "mimalloc", "mimalloc", "system"}));
  for (const Job& job : plan.jobs) EXPECT_EQ(job.cell_ids.size(), 4u);  // all cells of the variant
}

TEST(Plan, ThreeVariantsRotateSoEachLeadsOnce) {
  const Plan plan = make_plan(small_matrix({"system", "mimalloc", "jemalloc"}, 3), 1);
  EXPECT_EQ(launch_order(plan), (std::vector<std::string>{"system", "mimalloc", "jemalloc", "mimalloc", "jemalloc",
                                                          "system", "jemalloc", "system", "mimalloc"}));
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) EXPECT_EQ(plan.jobs[i].round, static_cast<int>(i / 3));
}

TEST(Plan, FreshProcessPerCellGivesEveryCellItsOwnProcesses) {
  Matrix m = small_matrix({"system", "mimalloc"}, 2);
  m.protocol.fresh_process_per_cell = true;
  const Plan plan = make_plan(m, 1);
  ASSERT_EQ(plan.jobs.size(), 2u * 2u * 4u);  // processes x variants x cells
  std::map<int, int> runs_of_cell;
  for (const Job& job : plan.jobs) {
    ASSERT_EQ(job.cell_ids.size(), 1u);
    ++runs_of_cell[job.cell_ids[0]];
  }
  for (const auto& [id, runs] : runs_of_cell) EXPECT_EQ(runs, 2) << id;
  // Variants still alternate: round 2 starts with mimalloc.
  EXPECT_EQ(plan.variants[plan.jobs[0].variant].backend, "system");
  EXPECT_EQ(plan.variants[plan.jobs[8].variant].backend, "mimalloc");
}

TEST(Plan, SeedsDifferPerProcessAndFollowTheRunSeed) {
  const Plan a = make_plan(small_matrix({"system", "mimalloc"}, 3), 7);
  const Plan b = make_plan(small_matrix({"system", "mimalloc"}, 3), 7);
  const Plan c = make_plan(small_matrix({"system", "mimalloc"}, 3), 8);
  std::set<std::uint64_t> seeds;
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    EXPECT_EQ(a.jobs[i].seed, b.jobs[i].seed);
    EXPECT_NE(a.jobs[i].seed, c.jobs[i].seed);
    seeds.insert(a.jobs[i].seed);
  }
  EXPECT_EQ(seeds.size(), a.jobs.size());
}

TEST(Plan, CountingRunsComeFirstOneFreshProcessPerCell) {
  Matrix m = small_matrix({"system", "mimalloc"}, 2);
  m.protocol.counts = true;
  const Plan plan = make_plan(m, 1);
  ASSERT_EQ(plan.jobs.size(), 8u + 2u * 2u);  // 8 cells counted, then 2 rounds x 2 variants
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(plan.jobs[i].mode, WorkerMode::count);
    EXPECT_EQ(plan.jobs[i].cell_ids, (std::vector<int>{static_cast<int>(i)}));
  }
  for (std::size_t i = 8; i < plan.jobs.size(); ++i) EXPECT_EQ(plan.jobs[i].mode, WorkerMode::time);
}

TEST(Plan, AContextPlanPairsFreshProcessesPerCellWithOneInMatrixProcessARound) {
  Matrix m = small_matrix({"system"}, 2);  // 4 cells
  m.protocol.counts = true;
  const Plan plan = make_context_plan(m, matrix_variants(m), 1);
  ASSERT_EQ(plan.variants.size(), 2u);
  EXPECT_EQ(plan.variants[0].label(), "system/exact (fresh)");
  EXPECT_EQ(plan.variants[1].label(), "system/exact");
  ASSERT_EQ(plan.partner.size(), 8u);
  EXPECT_EQ(plan.partner[0], 4);
  std::size_t fresh_counts = 0, matrix_counts = 0, leading = 0;
  std::map<int, int> fresh_timed, matrix_timed;  // processes per round
  for (std::size_t i = 0; i < plan.jobs.size(); ++i) {
    const Job& job = plan.jobs[i];
    if (job.mode == WorkerMode::count) {
      EXPECT_EQ(leading, i) << "counting jobs come first";
      ++leading;
      if (job.variant == 0) {
        ++fresh_counts;
        EXPECT_EQ(job.cell_ids.size(), 1u);
      } else {
        ++matrix_counts;  // one process over every cell: the history the timed processes have
        EXPECT_EQ(job.cell_ids, (std::vector<int>{4, 5, 6, 7}));
      }
      continue;
    }
    if (job.variant == 0) {
      EXPECT_EQ(job.cell_ids.size(), 1u);
      ++fresh_timed[job.round];
    } else {
      EXPECT_EQ(job.cell_ids.size(), 4u);
      ++matrix_timed[job.round];
    }
  }
  EXPECT_EQ(fresh_counts, 4u);
  EXPECT_EQ(matrix_counts, 1u);
  EXPECT_EQ(fresh_timed, (std::map<int, int>{{0, 4}, {1, 4}}));
  EXPECT_EQ(matrix_timed, (std::map<int, int>{{0, 1}, {1, 1}}));
}

// compare --context: the in-matrix pair first (as a compare's), then both fresh twins; every
// judged pair (the two sides in the matrix, each side in the matrix and fresh) has each of
// its members first in half the rounds.
TEST(Plan, ACompareContextPlanAlternatesWhichGoesFirstInEveryJudgedPair) {
  Matrix m = small_matrix({"system"}, 2);  // 4 cells a variant
  m.protocol.processes = 4;
  m.protocol.counts = false;
  std::vector<Variant> before = matrix_variants(m), after = matrix_variants(m);
  after[0].name = "b";
  const Plan plan = make_compare_context_plan(m, before, after, 1);
  ASSERT_EQ(plan.variants.size(), 4u);
  EXPECT_EQ(plan.variants[0].label(), "system/exact");
  EXPECT_EQ(plan.variants[1].label(), "b");
  EXPECT_EQ(plan.variants[2].label(), "system/exact (fresh)");
  EXPECT_EQ(plan.variants[3].label(), "b (fresh)");
  EXPECT_EQ(plan.partner[0], 4);                       // the compare's pair, as make_compare_plan pairs it
  std::map<int, std::vector<std::size_t>> first_seen;  // round -> variants in the order they first run
  for (const Job& job : plan.jobs) {
    EXPECT_EQ(job.cell_ids.size(), job.variant < 2 ? 4u : 1u) << "variant " << job.variant;
    auto& order = first_seen[job.round];
    if (std::find(order.begin(), order.end(), job.variant) == order.end()) order.push_back(job.variant);
  }
  ASSERT_EQ(first_seen.size(), 4u);
  for (const auto& [a, b] : std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {0, 2}, {1, 3}}) {
    int a_first = 0;
    for (const auto& [round, order] : first_seen)
      a_first += std::find(order.begin(), order.end(), a) < std::find(order.begin(), order.end(), b);
    EXPECT_EQ(a_first, 2) << a << " before " << b;
  }
}

TEST(Plan, RefusesACellLargerThanMemory) {
  Matrix m = small_matrix({"system"}, 1);
  m.sizes = {physical_memory_bytes() / 2};
  m.lives = {64};
  EXPECT_THROW(make_plan(m, 1), UsageError);
}

// A paced pair holds two processes of a cell at once: what fits once may not fit twice.
TEST(Plan, APacedCompareCountsBothProcessesOfACell) {
  Matrix m = small_matrix({"system"}, 6);
  m.sizes = {physical_memory_bytes() / 10 * 3};  // a footprint of 60% (allocate doubles the capacity)
  m.lives = {1};
  m.workloads = {Workload::allocate};
  Variant base, cand;
  cand.policy = Policy::padded;
  EXPECT_NO_THROW(make_compare_plan(m, {base}, {cand}, 1));
  m.protocol.interleave_batches = true;
  try {
    make_compare_plan(m, {base}, {cand}, 1);
    ADD_FAILURE() << "a paced pair of twice 60% of the memory was planned";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--interleave cell"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace abench
