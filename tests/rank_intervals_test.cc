// The exact null distributions against brute-force enumeration, and the intervals' shape.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "src/stats/rank_intervals.h"

namespace abench {
namespace {

// P(B <= k) by enumerating all 2^n sign patterns.
double brute_binomial_half_cdf(int n, long k) {
  long hits = 0;
  for (long mask = 0; mask < (1L << n); ++mask) hits += __builtin_popcountl(static_cast<unsigned long>(mask)) <= k;
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
      if (v)
        pairs += afters_below;
      else
        ++afters_below;
    }
    hits += pairs <= u;
    ++total;
  } while (std::next_permutation(is_before.begin(), is_before.end()));
  return static_cast<double>(hits) / static_cast<double>(total);
}

TEST(RankIntervals, SignDistributionIsExact) {
  for (int n : {1, 2, 3, 5, 6, 9, 12, 16})
    for (long k = -1; k <= n + 1; ++k)
      EXPECT_NEAR(binomial_half_cdf(n, k), brute_binomial_half_cdf(n, k), 1e-12) << "n=" << n << " k=" << k;
  EXPECT_DOUBLE_EQ(binomial_half_cdf(6, 0), 1.0 / 64);
  EXPECT_NEAR(binomial_half_cdf(12, 2), 79.0 / 4096, 1e-15);
  EXPECT_NEAR(binomial_half_cdf(1000, 500), 0.5126, 1e-3);  // large n, no overflow
}

TEST(RankIntervals, RankSumDistributionIsExact) {
  for (auto [m, n] : std::vector<std::pair<int, int>>{{1, 1}, {2, 3}, {3, 3}, {4, 4}, {3, 6}, {5, 5}})
    for (long u = -1; u <= m * n + 1; ++u)
      EXPECT_NEAR(rank_sum_cdf(m, n, u), brute_rank_sum_cdf(m, n, u), 1e-12) << m << "x" << n << " u=" << u;
  EXPECT_DOUBLE_EQ(rank_sum_cdf(3, 3, 0), 1.0 / 20);
  EXPECT_DOUBLE_EQ(rank_sum_cdf(4, 4, 0), 1.0 / 70);
}

TEST(RankIntervals, TheNormalApproximationTakesOverSmoothly) {
  // Exact at 400 pairs, approximated beyond: at each one's normal 2.5% point (mean - 1.96 sd)
  // both give about 2.5%.
  EXPECT_NEAR(rank_sum_cdf(20, 20, 127), 0.025, 0.003);
  EXPECT_NEAR(rank_sum_cdf(21, 21, 142), 0.025, 0.003);
}

TEST(RankIntervals, FewestReplicatesForAConfidence) {
  EXPECT_EQ(min_rounds_for(0.95), 6);  // 1 - 2/64 = 96.9%; 5 rounds reach 93.75% at most
  EXPECT_EQ(min_rounds_for(0.99), 8);  // 1 - 2/256
  EXPECT_EQ(min_rounds_for(0.90), 5);
  EXPECT_EQ(min_processes_for(0.95), 4);  // 1 - 2/70 = 97.1%; 3 a side reach 90% at most
}

TEST(RankIntervals, SignIntervalAtTheEdgeOfWhatRoundsCanReach) {
  // Six rounds: the only interval of at least 95% is [min, max], covering 1 - 2/64.
  const ShiftInterval six = sign_interval({0.03, -0.01, 0.02, 0.05, 0.01, 0.04}, 0.95);
  EXPECT_TRUE(six.reached);
  EXPECT_DOUBLE_EQ(six.coverage, 1 - 2.0 / 64);
  EXPECT_DOUBLE_EQ(six.low, -0.01);
  EXPECT_DOUBLE_EQ(six.high, 0.05);
  EXPECT_DOUBLE_EQ(six.estimate, 0.025);  // the median of the rounds
  // Five rounds cannot reach 95%: the widest interval is returned, marked as short.
  const ShiftInterval five = sign_interval({0.03, 0.01, 0.02, 0.05, 0.04}, 0.95);
  EXPECT_FALSE(five.reached);
  EXPECT_DOUBLE_EQ(five.coverage, 1 - 2.0 / 32);
  // Twelve rounds: the 3rd smallest to the 3rd largest (coverage 1 - 2 x 79/4096); one
  // wild round, however wild, moves it by one place only.
  std::vector<double> twelve{0.05, 0.01, 0.02, 0.03, 0.04, 0.06, 0.02, 0.03, 0.08, 0.00, 0.03, 0.04};
  ShiftInterval r = sign_interval(twelve, 0.95);
  EXPECT_TRUE(r.reached);
  EXPECT_DOUBLE_EQ(r.coverage, 1 - 2 * 79.0 / 4096);
  EXPECT_DOUBLE_EQ(r.low, 0.02);
  EXPECT_DOUBLE_EQ(r.high, 0.05);
  twelve[0] = -5.0;
  r = sign_interval(twelve, 0.95);
  EXPECT_DOUBLE_EQ(r.low, 0.01);
  EXPECT_GT(r.low, 0);
}

TEST(RankIntervals, RankSumIntervalOfAShift) {
  const ShiftInterval r = rank_sum_interval({1.0, 1.1, 0.9, 1.05}, {2.0, 2.1, 1.9, 2.05}, 0.95);
  EXPECT_TRUE(r.reached);
  EXPECT_DOUBLE_EQ(r.coverage, 1 - 2.0 / 70);
  EXPECT_DOUBLE_EQ(r.estimate, 1.0);
  EXPECT_GT(r.low, 0.7);
  EXPECT_FALSE(rank_sum_interval({1, 2, 3}, {4, 5, 6}, 0.95).reached);  // 90% at most
  EXPECT_THROW(rank_sum_interval({}, {1}, 0.95), std::invalid_argument);
  EXPECT_THROW(sign_interval({}, 0.95), std::invalid_argument);
}

}  // namespace
}  // namespace abench
