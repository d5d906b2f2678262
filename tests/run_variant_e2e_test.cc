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

using testing::read_csv;
using testing::read_file;
using testing::CliResult;
using testing::run_cli;

TEST(RunVariantEndToEnd, APreloadAndAnotherBuildAreMeasuredWithCountsExportsAndTheReport) {
  testing::TempDir dir;
  const auto out = dir.path() / "r";
  const CliResult r = run_cli({"run", "--variant", std::string("preload=") + TINY_V1 + ",label=tiny-preloaded",
                               "--variant", std::string("exe=") + TINY_WORKER_V2, "--matrix", "default", "--workload",
                               "pair", "--size", "32,4096", "--align", "1", "--live", "1", "--samples", "3",
                               "--processes", "2", "--min-batch-ms", "1", "--format", "gbench", "--out", out.string()});
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
  for (const auto& v : results["variants"])
    EXPECT_NE(v.dump().find("libtiny.so"), std::string::npos) << v.dump();
  const auto gbench = nlohmann::json::parse(read_file(out / "benchmark.json"));
  std::set<std::string> names;
  for (const auto& b : gbench["benchmarks"]) names.insert(b["run_name"]);
  EXPECT_EQ(names.size(), 4u);
  const std::string report = read_file(out / "report.html");
  EXPECT_NE(report.find("tiny-preloaded"), std::string::npos);
}

TEST(RunVariantEndToEnd, WhatAStoredBaselineCannotKeepAndABadSpecAreRefusedBeforeAnythingRuns) {
  testing::TempDir dir;
  const CliResult stored = run_cli({"run", "--variant", std::string("preload=") + TINY_V1, "--save-baseline", "x",
                                    "--matrix", "quick", "--out", (dir.path() / "a").string()});
  EXPECT_EQ(stored.exit_code, 2);
  EXPECT_NE(stored.err.find("option --save-baseline: variant 'system/exact+preload:libtiny' names a plugin, preload"),
            std::string::npos)
      << stored.err;
  const CliResult bad = run_cli({"run", "--variant", "preload=/no/such/lib.so", "--matrix", "quick", "--out",
                                 (dir.path() / "b").string()});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--variant"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("/no/such/lib.so"), std::string::npos) << bad.err;
  const CliResult field = run_cli({"run", "--variant", "colour=red", "--matrix", "quick", "--out",
                                   (dir.path() / "c").string()});
  EXPECT_EQ(field.exit_code, 2);
  EXPECT_NE(field.err.find("unknown field 'colour=red' (allowed: backend=,"), std::string::npos) << field.err;
  for (const char* d : {"a", "b", "c"}) EXPECT_FALSE(std::filesystem::exists(dir.path() / d / "results.json"));
}

TEST(ContextEndToEnd, AHistoryDependentAllocatorIsFlaggedInItsLargeCellsAndNotInASmallOne) {
  ABENCH_SKIP_UNDER_EMULATION("a context flag is a claim about a CPU's timing");
  testing::TempDir dir;
  const auto out = dir.path() / "r";
  // tiny-v4 spins on a large block for every other size class its process has used: in the
  // matrix's order the 4096 B cell follows the 64 B one, and fresh it follows none.
  const CliResult r = run_cli({"run", "--variant", std::string("preload=") + TINY_V4, "--matrix", "default",
                               "--workload", "allocate", "--policy", "exact", "--align", "1", "--live", "1", "--size",
                               "64,4096", "--samples", "3", "--min-batch-ms", "2", "--context", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::map<std::string, std::map<std::string, std::string>> in_matrix;
  for (const auto& row : read_csv(out / "results.csv")) {
    if (row.at("context") == "fresh") {
      EXPECT_NE(row.at("variant").find("(fresh)"), std::string::npos);
      EXPECT_EQ(row.at("fresh_ns_per_op"), "");
    } else {
      in_matrix[row.at("size")] = row;
    }
  }
  ASSERT_EQ(in_matrix.size(), 2u);
  EXPECT_EQ(in_matrix["4096"].at("context"), "sensitive");
  EXPECT_GT(std::stod(in_matrix["4096"].at("context_change")), 1.0);  // hundreds of spins on ~20 ns
  EXPECT_GT(std::stod(in_matrix["4096"].at("context_low")), 0.0);
  EXPECT_GT(std::stod(in_matrix["4096"].at("fresh_ns_per_op")), 0.0);
  // The small cell pays nothing either way: whatever chance flags, its change stays small.
  EXPECT_LT(std::abs(std::stod(in_matrix["64"].at("context_change"))), 0.25);
  EXPECT_NE(r.out.find("Context-sensitive cells:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allocate 4096 a1:1 L1"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_file(out / "results.json"))["protocol"]["order"], "matrix");
}

TEST(ContextEndToEnd, WhatItCannotGoWithIsRefusedBeforeAnythingRuns) {
  testing::TempDir dir;
  for (const auto& [option, value] : std::vector<std::pair<std::string, std::string>>{
           {"--shard", "1/2"}, {"--fresh-process-per-cell", ""}, {"--until-interval", "5"}}) {
    std::vector<std::string> args{"run", "--matrix", "quick", "--seed", "1", "--context", option};
    if (!value.empty()) args.push_back(value);
    args.insert(args.end(), {"--out", (dir.path() / "r").string()});
    const CliResult refused = run_cli(args);
    EXPECT_EQ(refused.exit_code, 2) << option;
    EXPECT_NE(refused.err.find("option --context: not with " + option), std::string::npos) << refused.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "r" / "results.json"));
}

}  // namespace
}  // namespace abench
