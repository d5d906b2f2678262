// The progress line's time left (src/run/progress.h) from the plan's expected cost.
#include <gtest/gtest.h>

#include "src/plan/cost.h"
#include "src/run/progress.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

TEST(Progress, TimeLeftFollowsThePlansExpectedCostNotTheCountOfMeasurements) {
  Matrix m = testing::small_matrix({"system", "mimalloc"}, 3);
  m.protocol.counts = true;  // counting runs first: cheap measurements, then the timed ones
  const Plan plan = make_plan(m, 1);
  const std::vector<double> cumulative = cumulative_expected_seconds(plan, plan.jobs, m.protocol);
  std::size_t total = 0, counting = 0;
  for (const Job& job : plan.jobs) {
    total += job.cell_ids.size();
    if (job.mode == WorkerMode::count) counting += job.cell_ids.size();
  }
  ASSERT_EQ(cumulative.size(), total + 1);
  ProgressLine line(false);
  line.expect(cumulative);
  // The counting runs took what they were expected to: what is left is the timed cells'
  // expected time, where a rate per measurement would say an eighth of it.
  const double elapsed = cumulative[counting];
  EXPECT_NEAR(line.seconds_left(counting, total, elapsed), cumulative[total] - cumulative[counting], 1e-9);
  const double per_measurement = elapsed / static_cast<double>(counting) * static_cast<double>(total - counting);
  EXPECT_GT(line.seconds_left(counting, total, elapsed), 5 * per_measurement);
  // A machine twice as slow as the model: twice the time left.
  EXPECT_NEAR(line.seconds_left(counting + 2, total, 2 * cumulative[counting + 2]),
              2 * (cumulative[total] - cumulative[counting + 2]), 1e-9);
  EXPECT_EQ(line.seconds_left(total, total, 5.0), 0.0);
}

}  // namespace
}  // namespace abench
