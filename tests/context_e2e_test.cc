// --context end to end: the real CLI on a history-dependent allocator (tests/allocators/tiny.c,
// TINY_HISTORY), run and compare, and the files, tables and report it writes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"
#include "tests/run_alone.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;

TEST(ContextEndToEnd, AHistoryDependentAllocatorIsFlaggedInItsLargeCellsAndNotInASmallOne) {
  ABENCH_RUNS_ALONE();
  ABENCH_SKIP_UNDER_EMULATION("a context flag is a claim about a CPU's timing");
  testing::TempDir dir;
  const auto out = dir.path() / "r";
  // tiny-v4 spins on a large block for every other size class its process has used: in the
  // matrix's order the 4096 B cell follows the 64 B one, and fresh it follows none.
  const CliResult r = run_cli({"run",       "--variant", std::string("preload=") + testing::built::kTinyV4,
                               "--matrix",  "default",   "--workload",
                               "allocate",  "--policy",  "exact",
                               "--align",   "1",         "--live",
                               "1",         "--size",    "64,4096",
                               "--samples", "3",         "--min-batch-ms",
                               "2",         "--context", "--out",
                               out.string()});
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
  // The small cell pays nothing either way: whatever chance flags (2 ms batches of a ~20 ns
  // cell move by a third on a loaded machine), its change stays far below the large cell's.
  EXPECT_LT(std::abs(std::stod(in_matrix["64"].at("context_change"))),
            std::stod(in_matrix["4096"].at("context_change")) / 2);
  EXPECT_NE(r.out.find("Context-sensitive cells:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("allocate 4096 a1:1 L1"), std::string::npos) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_file(out / "results.json"))["protocol"]["order"], "matrix");
  const std::string html = read_file(out / "report.html");
  EXPECT_NE(html.find("<h2 id=\"context\">Context-sensitive cells</h2>"), std::string::npos);
  EXPECT_NE(html.find("4 KiB, align 1, live 1"), std::string::npos);
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

// Both sides of a compare measured both ways: the verdict is the in-matrix sides', and a row
// whose cell depends on its history on either side is marked so.
TEST(ContextEndToEnd, ACompareMarksTheChangesThatAreContextSensitiveOnEitherSide) {
  ABENCH_RUNS_ALONE();
  ABENCH_SKIP_UNDER_EMULATION("a context flag is a claim about a CPU's timing");
  testing::TempDir dir;
  const auto out = dir.path() / "c";
  const CliResult r = run_cli({"compare",
                               "--baseline",
                               std::string("preload=") + testing::built::kTinyV1 + ",label=v1",
                               "--candidate",
                               std::string("preload=") + testing::built::kTinyV4 + ",label=v4",
                               "--matrix",
                               "default",
                               "--workload",
                               "allocate",
                               "--policy",
                               "exact",
                               "--align",
                               "1",
                               "--live",
                               "1",
                               "--size",
                               "64,4096",
                               "--samples",
                               "3",
                               "--min-batch-ms",
                               "2",
                               "--context",
                               "--out",
                               out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const nlohmann::json results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(results["protocol"]["process_mode"], "context");
  EXPECT_EQ(results["variants"].size(), 4u);  // each side in the matrix and fresh

  // compare.csv: one row per cell of the in-matrix pair, with its mark.
  std::map<std::string, std::map<std::string, std::string>> rows;
  for (const auto& row : read_csv(out / "compare.csv")) rows[row.at("size")] = row;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows["4096"].at("candidate"), "v4");
  EXPECT_EQ(rows["4096"].at("verdict"), "slower");
  EXPECT_TRUE(rows["4096"].at("context") == "candidate" || rows["4096"].at("context") == "both")
      << rows["4096"].at("context");
  // The small cell pays nothing either way: whatever chance marks, its change stays small.
  EXPECT_LT(std::abs(std::stod(rows["64"].at("change"))), 0.25);

  const nlohmann::json cmp = nlohmann::json::parse(read_file(out / "compare.json"));
  EXPECT_EQ(cmp["context"], true);
  ASSERT_EQ(cmp["rows"].size(), 2u);
  for (const auto& row : cmp["rows"]) EXPECT_TRUE(row.contains("context"));

  const std::string md = read_file(out / "compare.md");
  EXPECT_NE(md.find("| verdict | context |"), std::string::npos) << md;
  EXPECT_NE(md.find("### Context-sensitive cells"), std::string::npos) << md;
  EXPECT_NE(md.find("| v4 | allocate 4096 a1:1 L1 |"), std::string::npos) << md;

  // results.csv: the fresh twins and the in-matrix cells' context columns.
  int fresh = 0, judged = 0;
  for (const auto& row : read_csv(out / "results.csv")) (row.at("context") == "fresh" ? fresh : judged) += 1;
  EXPECT_EQ(fresh, 4);
  EXPECT_EQ(judged, 4);

  // The report reads the same files and says the same.
  const std::string html = read_file(out / "report.html");
  EXPECT_NE(html.find("<h2 id=\"context\">Context-sensitive cells</h2>"), std::string::npos);
  EXPECT_NE(html.find("context-sensitive: "), std::string::npos);

  // A mark compare.json claims is checked against results.json's cells, never shown on its word.
  nlohmann::json forged = cmp;
  for (auto& row : forged["rows"]) row["context"] = row["context"] == "-" ? "both" : "-";
  {
    std::ofstream file(out / "compare.json", std::ios::trunc);
    file << forged.dump(2);
  }
  const CliResult refused = run_cli({"report", out.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("field 'rows[0].context' is"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("but the cells of results.json make it"), std::string::npos) << refused.err;
}

TEST(ContextEndToEnd, ACompareWithContextIsNoGate) {
  testing::TempDir dir;
  const CliResult r = run_cli({"compare", "--baseline", "backend=system", "--candidate", "backend=system,label=b",
                               "--matrix", "quick", "--context", "--gate", "--out", (dir.path() / "c").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("option --context: not with --gate"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "c" / "results.json"));
}

}  // namespace
}  // namespace abench
