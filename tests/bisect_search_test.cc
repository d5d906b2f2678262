// The search of a bisect (src/flow/bisect_search.h): wherever the change is among 32 commits
// it is found in at most 5 tests; a skipped commit costs one more; a commit that cannot be
// called at the boundary leaves a range, never a guess.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "src/flow/bisect_files.h"
#include "src/flow/bisect_flow.h"
#include "src/flow/bisect_search.h"
#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

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
        states, default_max_tests(32));
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
        states, default_max_tests(32));
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
      states, default_max_tests(32));
  EXPECT_FALSE(range.found());
  EXPECT_EQ(range.last_good, 18u);
  EXPECT_EQ(range.first_bad, 20u);
  EXPECT_EQ(states[19], CommitState::unknown);
}

// Where every commit comes out unknown, the search stops after its cap, leaving the range.
TEST(BisectSearch, CommitsThatKeepComingOutUnknownStopTheSearchAtItsCap) {
  EXPECT_EQ(default_max_tests(32), 12u);
  EXPECT_EQ(default_max_tests(82), 16u);
  int tests = 0;
  std::vector<CommitState> states;
  const BisectRange range = bisect_commits(
      82,
      [&](std::size_t) {
        ++tests;
        return CommitState::unknown;
      },
      states, default_max_tests(82));
  EXPECT_EQ(tests, 16);
  EXPECT_FALSE(range.found());
  EXPECT_EQ(range.last_good, 0u);
  EXPECT_EQ(range.first_bad, 81u);
}

// Ends that were neither called different nor shown the same are not "no change": bisect.md
// says so, first_bad is null, and the exit code is 3, where ends shown alike exit 0.
TEST(BisectFiles, EndsThatCouldNotBeToldApartAreNeverCalledNoChange) {
  testing::TempDir dir;
  BisectRecord record;
  record.good = std::string(40, 'a');
  record.bad = std::string(40, 'b');
  record.ends = "unclear";
  BisectStep ends;
  ends.number = 1;
  ends.commit = record.bad;
  Judgement wide;
  wide.call = Call::unclear;
  wide.change = 0.08;
  wide.low = -0.24;
  wide.high = 0.26;
  ends.cells.push_back({"exact/batch/32/1:1/1", wide, wide});
  record.steps.push_back(ends);
  write_bisect_files(record, dir.path());
  const std::string md = testing::read_file(dir.path() / "bisect.md");
  EXPECT_NE(md.find("could not be told apart, nor shown alike"), std::string::npos) << md;
  EXPECT_EQ(md.find("no change"), std::string::npos) << md;
  const auto json = testing::read_json(dir.path() / "bisect.json");
  EXPECT_EQ(json["ends"], "unclear");
  EXPECT_TRUE(json["first_bad"].is_null());
  EXPECT_EQ((BisectOutcome{false, false, std::nullopt, 1}.exit_code()), 3);
  EXPECT_EQ((BisectOutcome{false, true, std::nullopt, 1}.exit_code()), 0);
  EXPECT_EQ((BisectOutcome{true, false, std::nullopt, 6}.exit_code()), 3) << "a range";
  EXPECT_EQ((BisectOutcome{true, false, std::string(40, 'c'), 6}.exit_code()), 0);
}

}  // namespace
}  // namespace abench
