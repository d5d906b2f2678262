// abench compare end to end: the example plugins in two revisions, identical variants,
// allocator subjects, preloads, other worker builds, and bad variants. Only counts and
// the presence of verdicts are asserted, never a timing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::read_csv;
using testing::read_file;
using testing::run_cli;
using testing::CliResult;

// Small and fast: the quick matrix's buffer workloads at two sizes, one live count.
std::vector<std::string> compare_args(const std::string& baseline, const std::string& candidate,
                                      const std::filesystem::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"compare", "--baseline", baseline, "--candidate", candidate, "--matrix", "quick",
                                "--size", "64,4096", "--live", "1", "--samples", "3", "--processes", "2",
                                "--min-batch-ms", "0.2", "--out", out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(CompareEndToEnd, TwoRevisionsOfTheExampleLibrary) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(compare_args(std::string("plugin=") + ABUF_V1 + ",label=v1",
                                           std::string("plugin=") + ABUF_V2 + ",label=v2", out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // 3 backends x 4 workloads x 2 sizes x 2 alignments, every one with a row and a verdict.
  const auto rows = read_csv(out / "compare.csv");
  ASSERT_EQ(rows.size(), 3u * 4u * 2u * 2u);
  for (const auto& row : rows) {
    EXPECT_NE(row.at("verdict"), "failed");
    EXPECT_FALSE(row.at("change").empty());
    // v1 pads every request by the alignment, v2 does not: the bytes must differ.
    EXPECT_GT(std::stod(row.at("requested_bytes_before")), std::stod(row.at("requested_bytes_after")))
        << row.at("baseline") << " " << row.at("workload") << " " << row.at("size");
  }
  const auto json = nlohmann::json::parse(read_file(out / "compare.json"));
  EXPECT_NE(json["method"]["interval"].get<std::string>().find("paired by round"), std::string::npos);
  EXPECT_EQ(json["geomean_change_by_backend"].size(), 3u);
  EXPECT_FALSE(json["warnings"].empty());  // 2 processes a side is too few, and it says so
  const std::string markdown = read_file(out / "compare.md");
  EXPECT_NE(markdown.find("| backend | workload | size |"), std::string::npos);
  EXPECT_NE(markdown.find("Geometric-mean change, overall:"), std::string::npos);
  EXPECT_NE(markdown.find("Use --processes 5 or more"), std::string::npos);
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_NE(results["variants"][0]["subject"].get<std::string>().find("plugin abuf 1 (padded)"), std::string::npos);
}

TEST(CompareEndToEnd, IdenticalPluginsShowNoChangeInCountsAndAVerdictForEveryCell) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const std::string v2 = std::string("plugin=") + ABUF_V2;
  const CliResult r = run_cli(compare_args(v2 + ",backend=mimalloc", v2 + ",backend=mimalloc", out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "compare.csv");
  ASSERT_EQ(rows.size(), 4u * 2u * 2u);
  for (const auto& row : rows) {
    EXPECT_TRUE(row.at("verdict") == "~" || row.at("verdict") == "slower" || row.at("verdict") == "faster");
    EXPECT_EQ(row.at("requested_bytes_before"), row.at("requested_bytes_after"));
    EXPECT_EQ(row.at("requests_before"), row.at("requests_after"));
    EXPECT_EQ(row.at("usable_bytes_before"), row.at("usable_bytes_after"));
  }
}

TEST(CompareEndToEnd, BothSidesOfACellRunAtOneIterationCount) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(compare_args("backend=system,policy=padded", "backend=system,policy=exact", out));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  const auto compare = nlohmann::json::parse(read_file(out / "compare.json"));
  for (const auto& row : compare["rows"]) {
    std::set<std::uint64_t> counts;
    for (const char* side : {"before_cell", "after_cell"})
      for (const auto& p : results["cells"][row[side].get<int>()]["processes"]) counts.insert(p["iterations"].get<std::uint64_t>());
    EXPECT_EQ(counts.size(), 1u) << row.dump();
  }
  // Processes alternate: round 1 baseline first, round 2 candidate first.
  const auto& workers = results["workers"];
  std::vector<std::string> timed;
  for (const auto& w : workers)
    if (w["mode"] == "time") timed.push_back(w["variant"]);
  EXPECT_EQ(timed, (std::vector<std::string>{"system/padded", "system/exact", "system/exact", "system/padded"}));
}

TEST(CompareEndToEnd, AllocatorSubjectPreloadAndAnotherWorkerBuild) {
  testing::TempDir dir;
  const CliResult subject = run_cli(compare_args(std::string("plugin=") + MALLOC_SUBJECT + ",backend=jemalloc",
                                                 "backend=jemalloc", dir.path() / "subject", {"--workload", "append"}));
  ASSERT_EQ(subject.exit_code, 0) << subject.err;
  for (const auto& row : read_csv(dir.path() / "subject" / "compare.csv")) EXPECT_NE(row.at("verdict"), "failed");

  const CliResult preload = run_cli(compare_args("backend=system", std::string("preload=") + JEMALLOC_LIBRARY,
                                                 dir.path() / "preload", {"--workload", "allocate"}));
  ASSERT_EQ(preload.exit_code, 0) << preload.err;
  const auto results = nlohmann::json::parse(read_file(dir.path() / "preload" / "results.json"));
  EXPECT_NE(results["variants"][1]["malloc_object"].get<std::string>().find("libjemalloc"), std::string::npos);
  EXPECT_NE(results["variants"][1]["allocator_version"].get<std::string>().find("jemalloc 5"), std::string::npos);

  const CliResult exe = run_cli(compare_args("backend=system", std::string("exe=") + WORKER_SYSTEM + ",env=GLIBC_TUNABLES=glibc.malloc.tcache_count=0",
                                             dir.path() / "exe", {"--workload", "allocate"}));
  ASSERT_EQ(exe.exit_code, 0) << exe.err;
  const auto exe_results = nlohmann::json::parse(read_file(dir.path() / "exe" / "results.json"));
  EXPECT_EQ(exe_results["variants"][1]["env"]["GLIBC_TUNABLES"], "glibc.malloc.tcache_count=0");
}

struct BadVariant {
  std::string baseline, candidate, must_mention;
};

TEST(CompareEndToEnd, BadVariantsExitTwoBeforeAnythingRuns) {
  const std::vector<BadVariant> cases{
      {"plugin=/no/such/libx.so", "backend=system", "plugin '/no/such/libx.so' does not exist"},
      {std::string("plugin=") + JEMALLOC_LIBRARY, "policy=exact", "cannot load plugin"},
      {"plugin=/lib/x86_64-linux-gnu/libm.so.6", "policy=exact", "does not export abench_plugin_v1"},
      {std::string("plugin=") + WRONG_ABI_PLUGIN, "policy=exact", "has ABI version 2, this worker speaks 1"},
      {"exe=/bin/true,backend=system", "backend=system", "is not an abench worker"},
      {std::string("exe=") + WORKER_MIMALLOC + ",backend=system", "backend=system", "is the worker of backend 'mimalloc'"},
      {"backend=hoard", "backend=system", "unknown backend 'hoard'"},
      {"backend=system,policy=lazy", "backend=system", "unknown policy 'lazy'"},
      {"backend=system", "policy=exact", "--baseline stands for 1 variants and --candidate for 3"},
      {std::string("preload=") + MALLOC_SUBJECT, "backend=system", "refused: refusing to run: malloc is served by"},
  };
  for (const auto& c : cases) {
    testing::TempDir dir;
    const CliResult r = run_cli(compare_args(c.baseline, c.candidate, dir.path() / "out"));
    EXPECT_EQ(r.exit_code, 2) << c.baseline << "\n" << r.err;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "out")) << c.baseline;
  }
}

}  // namespace
}  // namespace abench
