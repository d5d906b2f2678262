// run --variant SPEC through the real CLI: a preloaded library and another build of a
// worker measured on their own, with counts, exports and the report; what a stored
// baseline cannot keep refused before anything runs (resume: faults_e2e_test.cc). And
// run --context on an allocator whose large blocks cost more after other sizes were used.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;

TEST(RunVariantEndToEnd, APreloadAndAnotherBuildAreMeasuredWithCountsExportsAndTheReport) {
  testing::TempDir dir;
  const auto out = dir.path() / "r";
  const CliResult r = run_cli({"run",
                               "--variant",
                               std::string("preload=") + testing::built::kTinyV1 + ",label=tiny-preloaded",
                               "--variant",
                               std::string("exe=") + testing::built::kTinyWorkerV2,
                               "--matrix",
                               "default",
                               "--workload",
                               "pair",
                               "--size",
                               "32,4096",
                               "--align",
                               "1",
                               "--live",
                               "1",
                               "--samples",
                               "3",
                               "--processes",
                               "2",
                               "--min-batch-ms",
                               "1",
                               "--format",
                               "gbench",
                               "--out",
                               out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // The table names each variant: two rows of backend "system" would read alike otherwise.
  EXPECT_NE(r.out.find("tiny-preloaded"), std::string::npos) << r.out;
  const auto rows = read_csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 4u);
  std::set<std::string> variants;
  for (const auto& row : rows) {
    variants.insert(row.at("variant"));
    EXPECT_EQ(row.at("status"), "ok") << row.at("error");
    EXPECT_EQ(row.at("requests"), "1") << row.at("variant");  // the counting run served by that build
    EXPECT_EQ(row.at("count_check"), "ok");
  }
  EXPECT_EQ(variants, (std::set<std::string>{"tiny-preloaded", "linked/exact+exe:abench-worker-linked"}));
  // What served malloc is each build's own library, recorded per variant.
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  ASSERT_EQ(results["variants"].size(), 2u);
  for (const auto& v : results["variants"]) EXPECT_NE(v.dump().find("libtiny.so"), std::string::npos) << v.dump();
  const auto gbench = nlohmann::json::parse(read_file(out / "benchmark.json"));
  std::set<std::string> names;
  for (const auto& b : gbench["benchmarks"]) names.insert(b["run_name"]);
  EXPECT_EQ(names.size(), 4u);
  const std::string report = read_file(out / "report.html");
  EXPECT_NE(report.find("tiny-preloaded"), std::string::npos);
}

TEST(RunVariantEndToEnd, WhatAStoredBaselineCannotKeepAndABadSpecAreRefusedBeforeAnythingRuns) {
  testing::TempDir dir;
  const CliResult stored = run_cli({"run", "--variant", std::string("preload=") + testing::built::kTinyV1,
                                    "--save-baseline", "x", "--matrix", "quick", "--out", (dir.path() / "a").string()});
  EXPECT_EQ(stored.exit_code, 2);
  EXPECT_NE(stored.err.find("option --save-baseline: variant 'system/exact+preload:libtiny' names a plugin, preload"),
            std::string::npos)
      << stored.err;
  const CliResult bad = run_cli(
      {"run", "--variant", "preload=/no/such/lib.so", "--matrix", "quick", "--out", (dir.path() / "b").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--variant"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("/no/such/lib.so"), std::string::npos) << bad.err;
  const CliResult field =
      run_cli({"run", "--variant", "colour=red", "--matrix", "quick", "--out", (dir.path() / "c").string()});
  EXPECT_EQ(field.exit_code, 2);
  EXPECT_NE(field.err.find("unknown field 'colour=red' (allowed: backend=,"), std::string::npos) << field.err;
  for (const char* d : {"a", "b", "c"}) EXPECT_FALSE(std::filesystem::exists(dir.path() / d / "results.json"));
}

}  // namespace
}  // namespace abench
