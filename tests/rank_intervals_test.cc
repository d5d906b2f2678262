// The exact null distributions against brute-force enumeration, and the intervals' shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "src/stats/rank_intervals.h"

namespace abench {
namespace {

// P(T+ <= t) by enumerating all 2^n sign patterns.
double brute_signed_rank_cdf(int n, long t) {
  long hits = 0;
  for (long mask = 0; mask < (1L << n); ++mask) {
    long sum = 0;
    for (int r = 1; r <= n; ++r)
      if (mask & (1L << (r - 1))) sum += r;
    hits += sum <= t;
  }
  return static_cast<double>(hits) / static_cast<double>(1L << n);
}

// P(U <= u) by enumerating which of the m + n ranks belong to `before`.
double brute_rank_sum_cdf(int m, int n, long u) {
  std::vector<int> is_before(static_cast<std::size_t>(m + n), 0);
  std::fill(is_before.begin(), is_before.begin() + m, 1);
  std::sort(is_before.begin(), is_before.end());
  long hits = 0, total = 0;
  do {
    long pairs = 0, afters_below = 0;  // U: pairs (before, after) with the after below the before
    for (int v : is_before) {
      if (v) pairs += afters_below;
      else ++afters_below;
    }
    hits += pairs <= u;
    ++total;
  } while (std::next_permutation(is_before.begin(), is_before.end()));
  return static_cast<double>(hits) / static_cast<double>(total);
}

TEST(RankIntervals, SignedRankDistributionIsExact) {
  for (int n : {1, 2, 3, 5, 6, 8, 11})
    for (long t = -1; t <= n * (n + 1) / 2 + 1; ++t)
      EXPECT_NEAR(signed_rank_cdf(n, t), brute_signed_rank_cdf(n, t), 1e-12) << "n=" << n << " t=" << t;
  EXPECT_DOUBLE_EQ(signed_rank_cdf(6, 0), 1.0 / 64);
  EXPECT_DOUBLE_EQ(signed_rank_cdf(8, 3), 5.0 / 256);
}

TEST(RankIntervals, RankSumDistributionIsExact) {
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {3, 3}, {4, 4}, {3, 6}, {5, 5}})
    for (long u = -1; u <= m * n + 1; ++u)
      EXPECT_NEAR(rank_sum_cdf(m, n, u), brute_rank_sum_cdf(m, n, u), 1e-12) << m << "x" << n << " u=" << u;
  EXPECT_DOUBLE_EQ(rank_sum_cdf(3, 3, 0), 1.0 / 20);
  EXPECT_DOUBLE_EQ(rank_sum_cdf(4, 4, 0), 1.0 / 70);
}

TEST(RankIntervals, TheNormalApproximationTakesOverSmoothly) {
  // Exact at 60 differences and 400 pairs, approximated beyond: at each one's normal 2.5%
  // point (mean - 1.96 sd) both give about 2.5%, and the middle about a half.
  EXPECT_NEAR(signed_rank_cdf(60, 649), 0.025, 0.003);
  EXPECT_NEAR(signed_rank_cdf(61, 672), 0.025, 0.003);
  EXPECT_NEAR(signed_rank_cdf(61, 945), 0.5, 0.01);
  EXPECT_NEAR(rank_sum_cdf(20, 20, 127), 0.025, 0.003);
  EXPECT_NEAR(rank_sum_cdf(21, 21, 142), 0.025, 0.003);
}

TEST(RankIntervals, FewestReplicatesForAConfidence) {
  EXPECT_EQ(min_rounds_for(0.95), 6);   // 1 - 2/64 = 96.9%; 5 rounds reach 93.75% at most
  EXPECT_EQ(min_rounds_for(0.99), 8);   // 1 - 2/256
  EXPECT_EQ(min_rounds_for(0.90), 5);
  EXPECT_EQ(min_processes_for(0.95), 4);  // 1 - 2/70 = 97.1%; 3 a side reach 90% at most
}

TEST(RankIntervals, SignedRankIntervalAtTheEdgeOfWhatRoundsCanReach) {
  // Six rounds: the only interval of at least 95% is [min, max], covering 1 - 2/64.
  const ShiftInterval six = signed_rank_interval({0.03, -0.01, 0.02, 0.05, 0.01, 0.04}, 0.95);
  EXPECT_TRUE(six.reached);
  EXPECT_DOUBLE_EQ(six.coverage, 1 - 2.0 / 64);
  EXPECT_DOUBLE_EQ(six.low, -0.01);
  EXPECT_DOUBLE_EQ(six.high, 0.05);
  // Hodges-Lehmann: the median of the Walsh averages of {1, 2, 3} is 2.
  EXPECT_DOUBLE_EQ(signed_rank_interval({1, 2, 3}, 0.5).estimate, 2);
  // Five rounds cannot reach 95%: the widest interval is returned, marked as short.
  const ShiftInterval five = signed_rank_interval({0.03, 0.01, 0.02, 0.05, 0.04}, 0.95);
  EXPECT_FALSE(five.reached);
  EXPECT_DOUBLE_EQ(five.coverage, 1 - 2.0 / 32);
  // More rounds: a narrower interval than the range, at a coverage of at least 95%.
  std::vector<double> twelve{0.05, 0.01, 0.02, 0.03, 0.04, 0.06, 0.02, 0.03, 0.08, 0.00, 0.03, 0.04};
  const ShiftInterval r = signed_rank_interval(twelve, 0.95);
  EXPECT_TRUE(r.reached);
  EXPECT_GE(r.coverage, 0.95);
  EXPECT_LT(r.coverage, 0.96);
  EXPECT_GT(r.low, 0.00);
  EXPECT_LT(r.high, 0.08);
  EXPECT_LE(r.low, r.estimate);
  EXPECT_GE(r.high, r.estimate);
}

TEST(RankIntervals, RankSumIntervalOfAShift) {
  const ShiftInterval r = rank_sum_interval({1.0, 1.1, 0.9, 1.05}, {2.0, 2.1, 1.9, 2.05}, 0.95);
  EXPECT_TRUE(r.reached);
  EXPECT_DOUBLE_EQ(r.coverage, 1 - 2.0 / 70);
  EXPECT_DOUBLE_EQ(r.estimate, 1.0);
  EXPECT_GT(r.low, 0.7);
  EXPECT_FALSE(rank_sum_interval({1, 2, 3}, {4, 5, 6}, 0.95).reached);  // 90% at most
  EXPECT_THROW(rank_sum_interval({}, {1}, 0.95), std::invalid_argument);
  EXPECT_THROW(signed_rank_interval({}, 0.95), std::invalid_argument);
}

}  // namespace
}  // namespace abench
