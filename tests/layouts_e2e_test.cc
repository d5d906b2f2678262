// --layouts K through the real CLI: K layouts taken in turn, each with its own copies of the
// workers' files, and a cell whose figure moves with layout flagged layout-sensitive. The
// cell that must be flagged is made so: tiny.c with TINY_WORK_BY_STACK spins more or less in
// each malloc depending on where its process's stack starts, which is the layout's draw.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "src/run/process_copy.h"
#include "src/run/process_launcher.h"
#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"
#include "tests/run_alone.h"

namespace abench {
namespace {

using testing::read_csv;
using testing::read_json;
using testing::run_cli;

std::string tiny_spec(const std::string& label) {
  return "preload=" + std::string(testing::built::kTinyV1) + ",env=TINY_WORK_BY_STACK=200,label=" + label;
}

std::vector<std::string> one_cell(const std::filesystem::path& out, const std::string& workloads = "pair") {
  return {"--matrix",       "quick", "--workload", workloads,   "--size",      "64",          "--align",   "16",
          "--live",         "1",     "--seed",     "5",         "--no-counts", "--no-report", "--samples", "3",
          "--min-batch-ms", "2",     "--out",      out.string()};
}

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

TEST(LayoutsEndToEnd, ACellWhoseWorkMovesWithTheStackIsFlaggedLayoutSensitive) {
  ABENCH_RUNS_ALONE();
  ABENCH_SKIP_UNDER_EMULATION("an emulated worker's time is not the CPU's: the flag is a timing claim");
  testing::TempDir dir;
  // 10 rounds a layout, above the 7 the test needs, so that a process caught in one of this
  // machine's slow spells does not hide the layouts' separation.
  const auto r = run_cli(
      with({"run", "--variant", tiny_spec("tiny"), "--layouts", "3", "--processes", "30"}, one_cell(dir.path())));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto results = read_json(dir.path() / "results.json");
  EXPECT_EQ(results["protocol"]["layouts"], 3);
  const auto& processes = results["cells"][0]["processes"];
  ASSERT_EQ(processes.size(), 30u);
  // Each layout the same in all its rounds; the run's seed gives its layouts stacks that
  // make different work, the precondition of the flag below.
  std::map<int, int> shift_of;
  std::set<int> work;
  for (const auto& p : processes) {
    const int index = p["layout"]["index"], shift = p["layout"]["stack_shift"];
    EXPECT_EQ(index, (p["round"].get<int>() - 1) % 3);
    const auto [known, added] = shift_of.emplace(index, shift);
    EXPECT_EQ(known->second, shift) << "layout " << index;
    work.insert(shift / 16 % 4);
  }
  ASSERT_GT(work.size(), 1u) << "the seed's layouts give tiny.c the same work: no layout moves this cell";
  const auto rows = read_csv(dir.path() / "results.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("layout_sensitive"), "true")
      << "range " << rows[0].at("layout_range") << ", p " << rows[0].at("layout_p");
  EXPECT_GT(std::stod(rows[0].at("layout_range")), 0.03);
  EXPECT_NE(r.out.find("LAYOUT-SENSITIVE"), std::string::npos) << r.out;
  EXPECT_TRUE(results["cells"][0]["layout_spread"]["sensitive"].get<bool>());
  ASSERT_EQ(run_cli({"report", dir.path().string()}).exit_code, 0);
  EXPECT_NE(testing::read_file(dir.path() / "report.html").find("moves with layout beyond"), std::string::npos);
  // A file that regroups the processes (another layout for a round) is refused, not tested.
  auto edited = results;
  edited["cells"][0]["processes"][0]["layout"]["index"] = 1;
  testing::write_json(dir.path() / "results.json", edited);
  const auto refused = run_cli({"report", dir.path().string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("has index 1, but round 1 of --layouts 3 is layout 0"), std::string::npos) << refused.err;
}

TEST(LayoutsEndToEnd, ARunAtOneLayoutIsNeverFlagged) {
  testing::TempDir dir;
  const auto r = run_cli(
      with({"run", "--variant", tiny_spec("tiny"), "--layout", "fixed", "--processes", "4"}, one_cell(dir.path())));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(dir.path() / "results.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].at("layout_sensitive"), "");
  EXPECT_EQ(rows[0].at("layout_range"), "");
  EXPECT_EQ(r.out.find("LAYOUT-SENSITIVE"), std::string::npos) << r.out;
  EXPECT_FALSE(read_json(dir.path() / "results.json")["cells"][0].contains("layout_spread"));
}

// Both sides get the same layout in each pair, so the pairs cancel what the layouts do to the
// cell: the change between two identical builds stays small however far apart the layouts
// are (whether it is called is a 95% claim, 3% of cells by chance: not asserted here), the
// verdict's pairs are the layouts, and the layout column says both sides move.
TEST(LayoutsEndToEnd, ACompareOfTwoIdenticalSidesPairsTheLayoutsAndMarksBothSides) {
  ABENCH_RUNS_ALONE();
  ABENCH_SKIP_UNDER_EMULATION("an emulated worker's time is not the CPU's: the verdict is a timing claim");
  testing::TempDir dir;
  const auto r =
      run_cli(with({"compare", "--baseline", tiny_spec("a"), "--candidate", tiny_spec("b"), "--layouts", "6"},
                   one_cell(dir.path(), "pair,batch")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto compare = read_json(dir.path() / "compare.json");
  EXPECT_TRUE(compare["layouts"].get<bool>());
  ASSERT_EQ(compare["rows"].size(), 2u);
  for (const auto& row : compare["rows"]) {
    EXPECT_EQ(row["replicates"], 6) << "the pairs are the layouts, not the 48 rounds: " << row.dump();
    EXPECT_EQ(row["layout"], "both") << row.dump();
    EXPECT_GT(row["layout_range"].get<double>(), 0.5) << row.dump();
    EXPECT_LT(std::abs(row["change"].get<double>()), 0.1) << row.dump();
  }
  const std::string md = testing::read_file(dir.path() / "compare.md");
  EXPECT_NE(md.find("| layout |"), std::string::npos);
  EXPECT_NE(md.find("move with layout"), std::string::npos);
  const auto csv = read_csv(dir.path() / "compare.csv");
  EXPECT_EQ(csv.at(0).at("layout"), "both");
  ASSERT_EQ(run_cli({"report", dir.path().string()}).exit_code, 0);
  EXPECT_NE(testing::read_file(dir.path() / "report.html").find("layout-sensitive: both"), std::string::npos);
  // The marks are a claim about results.json's cells: a file that says otherwise is refused.
  auto edited = compare;
  edited["rows"][0]["layout"] = "-";
  testing::write_json(dir.path() / "compare.json", edited);
  const auto refused = run_cli({"report", dir.path().string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("rows[0].layout"), std::string::npos) << refused.err;
}

TEST(LayoutsEndToEnd, WhatLayoutsCannotGoWithIsRefusedNamingTheOption) {
  testing::TempDir dir;
  const auto refused = [&](std::vector<std::string> args, const std::string& says) {
    const auto r = run_cli(with(std::move(args), one_cell(dir.path())));
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "results.json"));
  };
  const std::vector<std::string> run{"run", "--variant", tiny_spec("tiny")};
  refused(with(run, {"--layouts", "1"}), "--layouts: 1 is out of range (allowed: a whole number from 2 to 8)");
  refused(with(run, {"--layouts", "9"}), "--layouts: 9 is out of range");
  refused(with(run, {"--layouts", "3", "--layout", "fixed"}), "--layout fixed gives every process the same layout");
  refused(with(run, {"--layouts", "3", "--layout", "kernel"}), "--layout kernel");
  refused(with(run, {"--layouts", "3", "--processes", "20"}), "allowed: 21 or more");
  refused(with(run, {"--layouts", "3", "--until-interval", "5"}), "not with --until-interval");
  refused(with(run, {"--layouts", "3", "--measure", "instructions"}), "--measure instructions");
  refused({"compare", "--baseline", tiny_spec("a"), "--candidate", tiny_spec("b"), "--layouts", "3"},
          "at least 6 of them");
}

// The copies of one layout are made by its first worker and run by all of them: the
// placement they carry is the layout's, the same every round.
TEST(LayoutsEndToEnd, ALayoutsCopiesAreMadeOnceAndKeptForItsOtherWorkers) {
  testing::TempDir dir;
  LaunchRequest request{testing::built::kWorkerSystem, {}, {}, "", 30};
  request.environment = {{"LD_PRELOAD", testing::built::kTinyV1}};
  request.fresh_copy_dir = dir.path().string();
  request.fresh_copy_library = testing::built::kTinyV1;
  request.shared_copy_name = shared_copy_name(1, 2);
  ProcessCopy first, second;
  ASSERT_EQ(make_process_copy(request, 0, first), "");
  const auto made = std::filesystem::last_write_time(first.executable);
  ASSERT_EQ(make_process_copy(request, 1, second), "");
  EXPECT_EQ(first.executable, second.executable);
  EXPECT_EQ(first.environment, second.environment);
  EXPECT_EQ(std::filesystem::last_write_time(second.executable), made);
  EXPECT_TRUE(first.made.empty() && second.made.empty()) << "a layout's copies outlive its workers";
  EXPECT_EQ(std::filesystem::path(first.executable).filename().string().size(),
            std::string("w0000000000").size());  // the frame's room for a numbered copy fits it
  request.shared_copy_name.clear();
  ProcessCopy own;
  ASSERT_EQ(make_process_copy(request, 2, own), "");
  EXPECT_NE(own.executable, first.executable);
  EXPECT_FALSE(own.made.empty());
  remove_process_copy(own.made);
}

}  // namespace
}  // namespace abench
