// Two builds of one allocator from C source (tests/allocators/tiny.c, the second slower on
// purpose), compared end to end through preload= and through workers built against each
// (backend `linked`, as scripts/build-worker builds them): counts in every cell though the
// allocator's strdup bypasses the malloc symbol, distinct names, the files that served
// malloc, and the slowdown found. No timing is asserted beyond the planted slowdown of
// hundreds of spins per malloc.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"
#include "tests/run_alone.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;

void expect_two_builds_compared(const std::filesystem::path& out, const std::string& v1_dir,
                                const std::string& v2_dir) {
  const auto json = nlohmann::json::parse(read_file(out / "compare.json"));
  ASSERT_EQ(json["baselines"].size(), 1u);
  const std::string before = json["baselines"][0], after = json["candidates"][0];
  EXPECT_NE(before, after);  // two builds never share a name
  EXPECT_NE(before.find(v1_dir), std::string::npos) << before;
  EXPECT_NE(after.find(v2_dir), std::string::npos) << after;
  // The file that served malloc on each side is the build's own.
  EXPECT_NE(json["baseline_allocators"][0].get<std::string>().find(v1_dir + "/lib/libtiny.so"), std::string::npos)
      << json["baseline_allocators"][0];
  EXPECT_NE(json["candidate_allocators"][0].get<std::string>().find(v2_dir + "/lib/libtiny.so"), std::string::npos)
      << json["candidate_allocators"][0];
  ASSERT_EQ(json["rows"].size(), 2u);
  for (const auto& row : json["rows"]) {
    EXPECT_TRUE(row["counts_unavailable"].is_null()) << row["counts_unavailable"];
    ASSERT_FALSE(row["counts_before"].is_null()) << row.dump();
    ASSERT_FALSE(row["counts_after"].is_null()) << row.dump();
    EXPECT_EQ(row["counts_before"]["requests"], row["counts_before"]["operations"]);  // one malloc a pair
    EXPECT_EQ(row["counts_after"]["frees"], row["counts_after"]["operations"]);
    EXPECT_EQ(row["verdict"], "slower") << row.dump();
  }
  const std::string markdown = read_file(out / "compare.md");
  EXPECT_NE(markdown.find("- before: "), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("entry points: portable"), std::string::npos) << markdown;
}

std::vector<std::string> pair_args(const std::string& baseline, const std::string& candidate,
                                   const std::filesystem::path& out) {
  return {"compare", "--baseline",     baseline, "--candidate", candidate,   "--matrix",
          "pair",    "--workload",     "pair",   "--size",      "32,4096",   "--samples",
          "3",       "--min-batch-ms", "1",      "--out",       out.string()};
}

std::string dir_of_build(const char* library) {  // .../tiny-vN from .../tiny-vN/lib/libtiny.so
  return std::filesystem::path(library).parent_path().parent_path().filename().string();
}

TEST(FromSourceEndToEnd, TwoBuildsPreloadedGetCountsNamesAndTheSlowdown) {
  ABENCH_RUNS_ALONE();
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(pair_args(std::string("preload=") + testing::built::kTinyV1,
                                        std::string("preload=") + testing::built::kTinyV2, out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_two_builds_compared(out, dir_of_build(testing::built::kTinyV1), dir_of_build(testing::built::kTinyV2));
}

TEST(FromSourceEndToEnd, WorkersBuiltAgainstEachBuildGetCountsNamesAndTheSlowdown) {
  ABENCH_RUNS_ALONE();
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(pair_args(std::string("exe=") + testing::built::kTinyWorkerV1,
                                        std::string("exe=") + testing::built::kTinyWorkerV2, out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  expect_two_builds_compared(out, dir_of_build(testing::built::kTinyV1), dir_of_build(testing::built::kTinyV2));
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  for (const auto& variant : results["variants"]) {
    EXPECT_EQ(variant["backend"], "linked");
    EXPECT_EQ(variant["entry_set"], "portable");
  }
}

// A worker built against one build refuses to run when another serves malloc.
TEST(FromSourceEndToEnd, AWorkerRefusesAnAllocatorOtherThanTheOneItWasBuiltAgainst) {
  if (testing::built::kSanitized)
    GTEST_SKIP() << "preloads an allocator into abench itself, which AddressSanitizer refuses; the plain suite runs it";
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  const CliResult r = run_cli(pair_args(std::string("exe=") + testing::built::kTinyWorkerV1,
                                        std::string("exe=") + testing::built::kTinyWorkerV2, out),
                              {{"LD_PRELOAD", testing::built::kTinyV2}});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_NE((r.out + r.err).find("but this worker was built against"), std::string::npos) << r.out << r.err;
}

}  // namespace
}  // namespace abench
