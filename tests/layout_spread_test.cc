#include "src/stats/layout_spread.h"

#include <cmath>
#include <map>
#include <random>

#include <gtest/gtest.h>

namespace abench {
namespace {

// K layouts taken in turn for `rounds` rounds: layout r mod K, its figure 10 ns x the
// layout's own factor x noise of `noise` (log scale, normal).
struct Simulated {
  std::vector<double> figures;
  std::vector<int> layout;
};
Simulated simulate(std::mt19937_64& draw, const std::vector<double>& factor, int rounds, double noise) {
  std::normal_distribution<double> z(0, noise);
  Simulated s;
  for (int r = 0; r < rounds; ++r) {
    const int k = r % static_cast<int>(factor.size());
    s.figures.push_back(10 * factor[static_cast<std::size_t>(k)] * std::exp(z(draw)));
    s.layout.push_back(k);
  }
  return s;
}

TEST(LayoutSpread, NeedsTwoLayoutsOfTwoProcessesEach) {
  EXPECT_FALSE(layout_spread({1, 2, 3}, {0, 1, 2}));
  EXPECT_FALSE(layout_spread({1, 2, 3}, {0, 0, 1}));
  EXPECT_FALSE(layout_spread({1, 2, 3, 4}, {-1, -1, -1, -1}));
  const auto spread = layout_spread({1, 1.2, 2, 2.2, 9}, {0, 0, 1, 1, 2});
  ASSERT_TRUE(spread);
  EXPECT_EQ(spread->layouts, 2);  // the layout with one process is left out
  EXPECT_NEAR(spread->range, 2.1 / 1.1 - 1, 1e-12);
}

TEST(LayoutSpread, EachLayoutGetsRoundsEnoughForTheTestToFindOneLayoutApart) {
  // What the test's own run on that case gives, pinned so a change to the test shows; each
  // computed once (a simulation of its own: seconds under sanitizers and emulation).
  const std::map<int, int> rounds{{2, 8}, {3, 7}, {4, 7}, {8, 9}};
  for (const auto& [k, n] : rounds) {
    EXPECT_EQ(rounds_per_layout(k), n) << k << " layouts";
    // One layout slower than the others, which are alike: found at n rounds a layout, not at
    // one fewer.
    std::vector<double> figures;
    std::vector<int> layout;
    for (int r = 0; r < k * n; ++r) figures.push_back((r % k == 0 ? 12 : 10) + 0.01 * r), layout.push_back(r % k);
    EXPECT_LE(layout_spread(figures, layout)->p_value, kLayoutSensitiveLevel) << k << " layouts";
    figures.resize(figures.size() - static_cast<std::size_t>(k)), layout.resize(figures.size());
    EXPECT_GT(layout_spread(figures, layout)->p_value, kLayoutSensitiveLevel / 2) << k << " layouts";
  }
}

TEST(LayoutSpread, TheSameFiguresGiveTheSameAnswer) {
  const std::vector<double> f{10, 10.2, 10.1, 11, 11.3, 11.1, 10.05, 10.15, 10.3};
  const std::vector<int> l{0, 0, 0, 1, 1, 1, 2, 2, 2};
  EXPECT_EQ(layout_spread(f, l)->p_value, layout_spread(f, l)->p_value);
}

// The level holds by simulation: where layout does not matter, a cell reaches it about as
// often as the level says, and is flagged less often still (it must be wider than the margin).
TEST(LayoutSpread, WhereLayoutDoesNotMatterFewCellsReachTheLevelAndFewerAreFlagged) {
  std::mt19937_64 draw(7);
  const int cells = 2000;
  int significant = 0, flagged = 0;
  for (int c = 0; c < cells; ++c) {
    const Simulated s = simulate(draw, {1, 1, 1, 1}, 28, 0.02);
    const auto spread = layout_spread(s.figures, s.layout, 2000);
    ASSERT_TRUE(spread);
    significant += spread->p_value <= kLayoutSensitiveLevel;
    flagged += spread->sensitive(0.03);
  }
  // Expected 2 at the level (0.001 x 2000); 8 or more has a chance of about 0.1%.
  EXPECT_LT(significant, 8);
  EXPECT_LE(flagged, significant);
}

TEST(LayoutSpread, LayoutsThatMoveTheFigureBeyondTheMarginAreFlagged) {
  std::mt19937_64 draw(11);
  int flagged = 0;
  for (int c = 0; c < 200; ++c) {
    const Simulated s = simulate(draw, {1, 1.05, 1.10, 0.97}, 28, 0.01);
    const auto spread = layout_spread(s.figures, s.layout, 4000);
    ASSERT_TRUE(spread);
    EXPECT_GT(spread->range, 0.05);
    flagged += spread->sensitive(0.03);
  }
  EXPECT_GE(flagged, 190);
}

TEST(LayoutSpread, ASignificantSpreadNarrowerThanTheMarginIsNotFlagged) {
  std::mt19937_64 draw(13);
  const Simulated s = simulate(draw, {1, 1.01, 1.02, 1.0}, 24, 0.001);
  const auto spread = layout_spread(s.figures, s.layout);
  ASSERT_TRUE(spread);
  EXPECT_LE(spread->p_value, kLayoutSensitiveLevel);
  EXPECT_LT(spread->range, 0.03);
  EXPECT_FALSE(spread->sensitive(0.03));
  EXPECT_TRUE(spread->sensitive(0.01));
}

}  // namespace
}  // namespace abench
