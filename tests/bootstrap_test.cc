#include <gtest/gtest.h>

#include <random>

#include "src/bootstrap.h"

namespace abench {
namespace {

// P processes of S samples: each process has its own offset (drift between processes)
// plus noise within it.
ProcessSamples synthetic(double center, double between, double within, int processes, int samples,
                         std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> process_offset(0, between), noise(0, within);
  ProcessSamples out;
  for (int p = 0; p < processes; ++p) {
    const double offset = process_offset(rng);
    std::vector<double> s;
    for (int i = 0; i < samples; ++i) s.push_back(center + offset + noise(rng));
    out.push_back(s);
  }
  return out;
}

TEST(Bootstrap, MedianOfMedians) {
  EXPECT_DOUBLE_EQ(median_of_medians({{1, 2, 3}, {10, 20, 30}, {4, 5, 6}}), 5);
}

TEST(Bootstrap, SameDataSameSeedSameInterval) {
  const auto a = synthetic(100, 3, 1, 5, 11, 1), b = synthetic(104, 3, 1, 5, 11, 2);
  const RatioInterval x = bootstrap_ratio(a, b, 0.95, 1000, 7), y = bootstrap_ratio(a, b, 0.95, 1000, 7);
  EXPECT_EQ(x.low, y.low);
  EXPECT_EQ(x.high, y.high);
  EXPECT_LE(x.low, x.ratio);
  EXPECT_GE(x.high, x.ratio);
}

TEST(Bootstrap, IntervalIncludesBetweenProcessDrift) {
  // Tiny noise within processes, large drift between them: an interval that pooled all
  // samples as independent would be narrow; the hierarchical one must stay wide enough
  // to include no change for two sides drawn from the same distribution.
  int includes_one = 0;
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    const auto a = synthetic(100, 5, 0.1, 5, 11, 100 + trial), b = synthetic(100, 5, 0.1, 5, 11, 500 + trial);
    const RatioInterval r = bootstrap_ratio(a, b, 0.95, 500, trial);
    includes_one += r.low <= 1 && r.high >= 1;
  }
  EXPECT_GE(includes_one, 30);  // a pooled interval includes 1 in only a few of these
}

TEST(Bootstrap, DetectsARealShift) {
  const auto a = synthetic(100, 1, 1, 5, 11, 3), b = synthetic(110, 1, 1, 5, 11, 4);
  const RatioInterval r = bootstrap_ratio(a, b, 0.95, 1000, 1);
  EXPECT_NEAR(r.ratio, 1.10, 0.03);
  EXPECT_GT(r.low, 1.0);
}

TEST(Bootstrap, RejectsEmptySides) {
  EXPECT_THROW(bootstrap_ratio({}, {{1}}, 0.95, 10, 1), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio({{1}}, {{}}, 0.95, 10, 1), std::invalid_argument);
}

}  // namespace
}  // namespace abench
