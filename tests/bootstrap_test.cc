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

// Two sides of an interleaved run: round r's processes share the machine's state at that
// moment (an offset common to both), plus their own noise; `shift` multiplies the after side.
std::pair<ProcessSamples, ProcessSamples> interleaved(double shift, double round_drift, double own, int rounds,
                                                      std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> drift(0, round_drift), process(0, own), noise(0, 0.2);
  ProcessSamples before, after;
  for (int r = 0; r < rounds; ++r) {
    const double common = 100 + drift(rng);
    std::vector<double> b, a;
    const double b_offset = process(rng), a_offset = process(rng);
    for (int i = 0; i < 11; ++i) {
      b.push_back(common + b_offset + noise(rng));
      a.push_back((common + a_offset) * shift + noise(rng));
    }
    before.push_back(b);
    after.push_back(a);
  }
  return {before, after};
}

TEST(PairedBootstrap, RoundDriftCancelsSoAFivePercentShiftIsFound) {
  // Rounds drift by 8% while each process adds only 0.5%: unpaired, the drift swamps a 5%
  // change; paired, it cancels in every round's ratio.
  int paired_found = 0, unpaired_found = 0;
  for (std::uint64_t trial = 0; trial < 20; ++trial) {
    const auto [before, after] = interleaved(1.05, 8, 0.5, 5, 900 + trial);
    const RatioInterval paired = paired_bootstrap_ratio(before, after, 0.95, 500, trial);
    EXPECT_TRUE(paired.paired);
    EXPECT_NEAR(paired.ratio, 1.05, 0.02);
    paired_found += paired.low > 1;
    unpaired_found += bootstrap_ratio(before, after, 0.95, 500, trial).low > 1;
  }
  EXPECT_GE(paired_found, 18);
  EXPECT_LE(unpaired_found, 10);
}

TEST(PairedBootstrap, AnUnchangedPairRarelyExcludesNoChange) {
  int includes_one = 0;
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    const auto [before, after] = interleaved(1.0, 8, 2, 5, 300 + trial);
    const RatioInterval r = paired_bootstrap_ratio(before, after, 0.95, 500, trial);
    includes_one += r.low <= 1 && r.high >= 1;
  }
  EXPECT_GE(includes_one, 34);
}

TEST(PairedBootstrap, IntervalOfChangePairsByRoundOrFallsBack) {
  const auto [before, after] = interleaved(1.05, 8, 0.5, 4, 77);
  // The after side listed in another order: pairing follows the rounds, not the order.
  const ProcessSamples after_shuffled{after[2], after[0], after[3], after[1]};
  const RatioInterval by_round =
      interval_of_change(before, {1, 2, 3, 4}, after_shuffled, {3, 1, 4, 2}, 0.95, 500, 5);
  const RatioInterval direct = paired_bootstrap_ratio(before, after, 0.95, 500, 5);
  EXPECT_TRUE(by_round.paired);
  EXPECT_EQ(by_round.ratio, direct.ratio);
  EXPECT_EQ(by_round.low, direct.low);
  // Rounds that do not match (or no rounds: sides of different runs) are not paired.
  EXPECT_FALSE(interval_of_change(before, {1, 2, 3, 4}, after, {1, 2, 3, 5}, 0.95, 100, 5).paired);
  EXPECT_FALSE(interval_of_change(before, {}, after, {}, 0.95, 100, 5).paired);
  EXPECT_THROW(paired_bootstrap_ratio(before, {after[0]}, 0.95, 10, 1), std::invalid_argument);
  // The point estimate alone is the interval's ratio, paired or not.
  EXPECT_EQ(ratio_of_change(before, {1, 2, 3, 4}, after_shuffled, {3, 1, 4, 2}), direct.ratio);
  EXPECT_EQ(ratio_of_change(before, {}, after, {}), median_of_medians(after) / median_of_medians(before));
}

TEST(Bootstrap, RejectsEmptySides) {
  EXPECT_THROW(bootstrap_ratio({}, {{1}}, 0.95, 10, 1), std::invalid_argument);
  EXPECT_THROW(bootstrap_ratio({{1}}, {{}}, 0.95, 10, 1), std::invalid_argument);
}

}  // namespace
}  // namespace abench
