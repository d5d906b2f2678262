// A run judged against a segment of its history (src/verdict/segment_rule.h): by simulation
// with seeded lognormal noise, a run like the segment's is called slower at most as often as
// its confidence allows, and a step beyond the bar is called; a segment without spread calls
// any change at the bar, and one too short for a verdict says why.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "src/verdict/segment_rule.h"

namespace abench {
namespace {

struct Simulated {
  double slower = 0, faster = 0;  // the share of runs called so
};

// `trials` segments of `n` runs around 100 with lognormal noise `sd`, each followed by one
// run `step` away, judged at 95% with `bar`.
Simulated simulate(std::size_t n, double sd, double step, double bar, std::uint64_t seed, int trials = 20000) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> noise(0, sd);
  int slower = 0, faster = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> segment;
    for (std::size_t i = 0; i < n; ++i) segment.push_back(100 * std::exp(noise(random)));
    const Judgement j = judge_against_segment(segment, {100 * (1 + step) * std::exp(noise(random))}, 0.95, bar, bar);
    slower += j.call == Call::slower;
    faster += j.call == Call::faster;
  }
  return {static_cast<double>(slower) / trials, static_cast<double>(faster) / trials};
}

TEST(SegmentRule, ARunLikeTheSegmentIsCalledAsOftenAsTheConfidenceAllows) {
  // With no bar, the prediction interval alone: 2.5% a side at 95%, whatever the segment's length.
  for (std::size_t n : {5, 10, 20}) {
    const Simulated s = simulate(n, 0.02, 0, 0, 100 + n);
    EXPECT_NEAR(s.slower, 0.025, 0.006) << n << " points";
    EXPECT_NEAR(s.faster, 0.025, 0.006) << n << " points";
  }
  // With the gate's 5% bar over 1% run-to-run noise, a false regression is all but impossible.
  EXPECT_LT(simulate(5, 0.01, 0, 0.05, 7).slower, 0.001);
}

TEST(SegmentRule, AStepBeyondTheBarIsCalled) {
  EXPECT_GT(simulate(10, 0.01, 0.08, 0.05, 11, 4000).slower, 0.97);
  EXPECT_GT(simulate(10, 0.01, -0.08, 0.05, 12, 4000).faster, 0.97);
  // Below the bar, never a regression however sure.
  EXPECT_EQ(simulate(20, 0.002, 0.03, 0.05, 13, 2000).slower, 0);
}

TEST(SegmentRule, ASegmentWithoutSpreadCallsAnyChangeAtTheBar) {
  const std::vector<double> counts(6, 200.0);
  const Judgement more = judge_against_segment(counts, {202}, 0.95, 0.005, 0.005);
  EXPECT_EQ(more.call, Call::slower);
  EXPECT_NEAR(more.change, 0.01, 1e-12);
  EXPECT_DOUBLE_EQ(more.low, more.high);
  EXPECT_EQ(more.coverage, 1);
  EXPECT_EQ(judge_against_segment(counts, {200.5}, 0.95, 0.005, 0.005).call, Call::same);
}

TEST(SegmentRule, TooFewPointsOrAFigureThatIsNotPositiveIsUndecidedWithItsReason) {
  const Judgement short_segment = judge_against_segment({100, 101, 99, 100}, {150}, 0.95, 0.05, 0.05);
  EXPECT_EQ(short_segment.call, Call::undecided);
  EXPECT_NE(short_segment.reason.find("4 points"), std::string::npos) << short_segment.reason;
  EXPECT_EQ(judge_against_segment({100, 101, 99, 100, 100}, {0}, 0.95, 0.05, 0.05).call, Call::undecided);
}

}  // namespace
}  // namespace abench
