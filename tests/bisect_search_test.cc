// The search of a bisect (src/flow/bisect_search.h): wherever the change is among 32 commits
// it is found in at most 5 tests; a skipped commit costs one more; a commit that cannot be
// called at the boundary leaves a range, never a guess.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "src/flow/bisect_search.h"

namespace abench {
namespace {

TEST(BisectSearch, EveryFirstBadCommitOf32IsFoundInAtMostFiveTests) {
  for (std::size_t first_bad = 1; first_bad < 32; ++first_bad) {
    int tests = 0;
    std::vector<CommitState> states;
    const BisectRange range = bisect_commits(
        32,
        [&](std::size_t i) {
          ++tests;
          return i >= first_bad ? CommitState::bad : CommitState::good;
        },
        states);
    EXPECT_TRUE(range.found()) << first_bad;
    EXPECT_EQ(range.first_bad, first_bad);
    EXPECT_LE(tests, 5) << first_bad;
  }
}

TEST(BisectSearch, ASkippedCommitIsPassedOverAndCostsOneTest) {
  for (std::size_t first_bad = 1; first_bad < 32; ++first_bad) {
    int tests = 0;
    std::vector<CommitState> states;
    const BisectRange range = bisect_commits(
        32,
        [&](std::size_t i) {
          ++tests;
          if (i == 15 && first_bad != 15 && first_bad != 16) return CommitState::skipped;
          return i >= first_bad ? CommitState::bad : CommitState::good;
        },
        states);
    EXPECT_EQ(range.first_bad, first_bad);
    EXPECT_TRUE(range.found());
    EXPECT_LE(tests, 6) << first_bad;
  }
}

TEST(BisectSearch, ACommitThatCannotBeCalledAtTheBoundaryLeavesARange) {
  std::vector<CommitState> states;
  const BisectRange range = bisect_commits(
      32,
      [](std::size_t i) {
        if (i == 19) return CommitState::unknown;
        return i >= 20 ? CommitState::bad : CommitState::good;
      },
      states);
  EXPECT_FALSE(range.found());
  EXPECT_EQ(range.last_good, 18u);
  EXPECT_EQ(range.first_bad, 20u);
  EXPECT_EQ(states[19], CommitState::unknown);
}

}  // namespace
}  // namespace abench
