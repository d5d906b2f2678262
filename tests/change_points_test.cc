// Change points (src/stats/change_points.h): a planted step is found where it is, a flat
// series has none, a step below the cell's detectable change is never reported; and, by
// simulation with seeded noise, false change points stay rare and real steps are found.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "src/stats/change_points.h"

namespace abench {
namespace {

// `n` figures around 100 with lognormal noise of `sd`, times 1 + step from `at` on.
std::vector<double> series(std::size_t n, double sd, double step, std::size_t at, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, sd);
  std::vector<double> x;
  for (std::size_t i = 0; i < n; ++i) x.push_back(100 * (i >= at ? 1 + step : 1) * std::exp(noise(random)));
  return x;
}

TEST(ChangePoints, WelchsTestGivesTheTextbookPValue) {
  // t = 2, df = 8: two-sided p = 0.0805 (Student's t table).
  EXPECT_NEAR(welch_p_value({1, 2, 3, 4, 5}, {3, 4, 5, 6, 7}), 0.0805, 0.0005);
  EXPECT_EQ(welch_p_value({1}, {2, 3}), 1);
}

TEST(ChangePoints, AStepIsFoundAtItsFirstPoint) {
  ChangePointRule rule;
  rule.min_step = 0.02;
  const auto found = change_points(series(24, 0.01, 0.05, 12, 1), rule);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].index, 12u);
  EXPECT_NEAR(found[0].step, 0.05, 0.015);
  EXPECT_LT(found[0].p_value, rule.alpha);
}

TEST(ChangePoints, TwoStepsAreBothFound) {
  std::vector<double> x = series(36, 0.01, 0.06, 12, 2);
  for (std::size_t i = 24; i < x.size(); ++i) x[i] *= 0.9;
  const auto found = change_points(x, ChangePointRule{});
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].index, 12u);
  EXPECT_EQ(found[1].index, 24u);
  EXPECT_LT(found[1].step, 0);
}

TEST(ChangePoints, AStepBelowTheDetectableChangeIsNeverReported) {
  ChangePointRule rule;
  rule.min_step = 0.05;  // the cell resolves 5%, the step is 3%
  EXPECT_TRUE(change_points(series(60, 0.002, 0.03, 30, 3), rule).empty());
  rule.min_step = 0.01;
  EXPECT_EQ(change_points(series(60, 0.002, 0.03, 30, 3), rule).size(), 1u);
}

// The rule's calibration at its defaults, by simulation (docs/statistics.md, "Change points",
// has the table at more settings): false change points in flat series of 50 at 1% noise, at
// most 1% of series; a 5% step with 10 points each side found (at its place, within one
// point) in at least 95% of series. A drift of the rule in either direction fails here.
TEST(ChangePoints, FalseChangePointsAreRareAndAFivePercentStepIsFound) {
  constexpr int kSeries = 400;
  const ChangePointRule rule;
  int false_series = 0, found_steps = 0;
  for (int s = 0; s < kSeries; ++s) {
    false_series += change_points(series(50, 0.01, 0, 0, 1000 + s), rule).empty() ? 0 : 1;
    const auto found = change_points(series(20, 0.01, 0.05, 10, 5000 + s), rule);
    found_steps += found.size() == 1 && (found[0].index >= 9 && found[0].index <= 11) ? 1 : 0;
  }
  EXPECT_LE(false_series, kSeries / 100) << false_series << " of " << kSeries << " flat series had a change point";
  EXPECT_GE(found_steps, kSeries * 95 / 100) << found_steps << " of " << kSeries << " steps found";
}

}  // namespace
}  // namespace abench
