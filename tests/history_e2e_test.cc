// abench history through the real CLI: a run recorded with its commit, refused without one,
// and the store rebuilt from the results directories alone.
#include <gtest/gtest.h>

#include <filesystem>

#include <fmt/format.h>

#include "src/results/results_reader.h"
#include "src/store/history_store.h"
#include "tests/built_paths.h"
#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/postgres_cluster.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::run_cli;

TEST(HistoryEndToEnd, ARunIsRecordedWithItsCommitAndTheStoreIsRebuiltFromItsDirectory) {
  testing::TempDir dir;
  const std::string run_dir = (dir.path() / "run").string(), store = (dir.path() / "history.db").string();
  const auto ran =
      run_cli({"run", "--matrix",       "quick", "--backend",   "system",      "--workload", "pair", "--size",
               "32",  "--live",         "1",     "--align",     "16",          "--samples",  "2",    "--processes",
               "2",   "--min-batch-ms", "1",     "--no-counts", "--no-report", "--out",      run_dir});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;

  const auto no_commit = run_cli({"history", "add", run_dir, "--history", store, "--commit", ""});
  EXPECT_EQ(no_commit.exit_code, 2) << no_commit.err;
  const auto added = run_cli({"history", "add", run_dir, "--history", store, "--commit", "c01", "--branch", "main"});
  ASSERT_EQ(added.exit_code, 0) << added.err;
  EXPECT_NE(added.out.find("1 runs recorded, 0 already there"), std::string::npos) << added.out;
  const auto again = run_cli({"history", "add", run_dir, "--history", store, "--commit", "c01"});
  EXPECT_NE(again.out.find("0 runs recorded, 1 already there"), std::string::npos) << again.out;
  const auto history = testing::read_json(std::filesystem::path(run_dir) / "history.json");
  EXPECT_EQ(history["commit"], "c01");

  std::filesystem::remove(store);
  const auto rebuilt = run_cli({"history", "rebuild", run_dir, "--history", store});
  ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  HistoryStore read(store);
  EXPECT_EQ(read.run_count(), 1);
  EXPECT_EQ(read.point_count(), 1);
  const auto rows = read.connection().run("SELECT commit_rev, branch FROM runs", {});
  EXPECT_EQ(std::get<std::string>(rows.at(0).at(0)), "c01");
  EXPECT_EQ(std::get<std::string>(rows.at(0).at(1)), "main");

  const auto unknown = run_cli({"history", "add", run_dir, "--history", "mysql://db/x", "--commit", "c02"});
  EXPECT_EQ(unknown.exit_code, 2) << unknown.err;
  const auto without = run_cli({"history", "rebuild", dir.path().string(), "--history", store});
  EXPECT_EQ(without.exit_code, 2) << without.err;
  EXPECT_EQ(HistoryStore(store).run_count(), 1) << "a refused rebuild empties nothing";
}

// --history on run: the run recorded with its commit once its results are written; without a
// commit (and with none in the CI's variables) refused before anything is measured.
TEST(HistoryEndToEnd, ARunWithHistoryIsRecordedAndOneWithoutACommitMeasuresNothing) {
  testing::TempDir dir;
  const std::string store = (dir.path() / "history.db").string();
  const std::vector<std::string> run{"run",  "--matrix",    "quick",      "--backend",   "system", "--workload",
                                     "pair", "--size",      "32",         "--live",      "1",      "--align",
                                     "16",   "--samples",   "2",          "--processes", "2",      "--min-batch-ms",
                                     "1",    "--no-counts", "--no-report"};
  const std::vector<std::pair<std::string, std::string>> no_ci{
      {"GITHUB_SHA", ""}, {"CI_COMMIT_SHA", ""}, {"BUILDKITE_COMMIT", ""}, {"GIT_COMMIT", ""}};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = run;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const auto refused = run_cli(with({"--history", store, "--out", (dir.path() / "a").string()}), no_ci);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("no commit to record the run with"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "a" / "results.json")) << "refused before measuring";
  const auto lone = run_cli(with({"--commit", "c1", "--out", (dir.path() / "b").string()}));
  EXPECT_EQ(lone.exit_code, 2) << lone.err;

  const auto recorded =
      run_cli(with({"--history", store, "--out", (dir.path() / "c").string()}), {{"GITHUB_SHA", "0123abc"}});
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  EXPECT_NE(recorded.out.find("history: recorded in " + store + " with commit 0123abc"), std::string::npos)
      << recorded.out;
  EXPECT_EQ(testing::read_json(dir.path() / "c" / "history.json")["commit"], "0123abc");
  HistoryStore read(store);
  EXPECT_EQ(read.run_count(), 1);
  EXPECT_EQ(read.point_count(), 1);
}

// The changes a store holds, by `history changes`: its exit code and changes.csv's rows.
std::pair<int, std::vector<std::map<std::string, std::string>>> changes_in(const std::string& store,
                                                                           const std::filesystem::path& out,
                                                                           const std::string& recent) {
  const auto r = run_cli({"history", "changes", "--history", store, "--out", out.string(), "--recent", recent});
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out / "changes.md"));
  EXPECT_TRUE(std::filesystem::exists(out / "changes.json"));
  return {r.exit_code, testing::read_csv(out / "changes.csv")};
}

// 24 runs of a pair cell, each of two variants: "tiny", measuring tiny v1 at c01..c12 and
// tiny v2 (whose malloc does more work) at c13..c24, and "glibc", the same at every commit:
// `history changes` names c13 for tiny's cell and nothing for glibc's, which the change does
// not touch; in a SQLite file and in a PostgreSQL database, and again after each is rebuilt
// from the results directories. Counted (--measure instructions): on a machine whose load
// changes, as this suite's, a timed cell's level moves with it, and that is a change point too
// (tests/history_store_test.cc finds a 6% step in 1% noise).
TEST(HistoryEndToEnd, TwentyFourCommitsWithASlowerMallocFromC13OnChangeAtC13InTheCellsItTouches) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  // 48 runs and 96 recordings: sanitized, a minute of CI; the history's code runs sanitized in the
  // shorter tests below, and this one in the plain build.
  if (testing::built::kSanitized) GTEST_SKIP() << "the plain build runs this 24-commit history";
  testing::TempDir dir;
  testing::PostgresCluster cluster;
  const std::string sqlite = (dir.path() / "history.db").string(), postgres = cluster.url();
  std::vector<std::string> dirs;
  for (int c = 1; c <= 24; ++c) {
    const std::string run_dir = (dir.path() / fmt::format("c{:02d}", c)).string();
    const std::string tiny = c < 13 ? testing::built::kTinyV1 : testing::built::kTinyV2;
    const auto ran = run_cli({"run",
                              "--matrix",
                              "quick",
                              "--variant",
                              "backend=system,preload=" + tiny + ",label=tiny",
                              "--variant",
                              "backend=system,label=glibc",
                              "--workload",
                              "pair",
                              "--size",
                              "64",
                              "--align",
                              "16",
                              "--live",
                              "8",
                              "--measure",
                              "instructions",
                              "--processes",
                              "1",
                              "--no-counts",
                              "--no-report",
                              "--out",
                              run_dir});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    for (const std::string& store : {sqlite, postgres}) {
      const auto added =
          run_cli({"history", "add", run_dir, "--history", store, "--commit", fmt::format("c{:02d}", c)});
      ASSERT_EQ(added.exit_code, 0) << added.err;
    }
    dirs.push_back(run_dir);
  }
  auto check = [&](const std::string& store, const std::string& name) {
    const auto [code, rows] = changes_in(store, dir.path() / name, "12");
    EXPECT_EQ(code, 1) << name << ": a regression begins within the last 12 commits";
    std::string seen;
    for (const auto& row : rows)
      seen += fmt::format("{} {} {} {} at {} ({}); ", row.at("kind"), row.at("variant"), row.at("workload"),
                          row.at("change"), row.at("commit"), row.at("p_value"));
    ASSERT_EQ(rows.size(), 1u) << name << ": " << seen;
    EXPECT_EQ(rows[0].at("commit"), "c13") << name;
    EXPECT_EQ(rows[0].at("previous_commit"), "c12");
    EXPECT_EQ(rows[0].at("kind"), "regression");
    EXPECT_EQ(rows[0].at("variant"), "tiny");
    EXPECT_EQ(rows[0].at("workload"), "pair");
    EXPECT_EQ(rows[0].at("size"), "64");
    EXPECT_EQ(rows[0].at("live"), "8");
    EXPECT_GT(std::stod(rows[0].at("change")), 0.05);
    EXPECT_EQ(changes_in(store, dir.path() / (name + "-older"), "11").first, 0) << "c13 is 12 commits back";
  };
  check(sqlite, "sqlite");
  check(postgres, "postgres");
  // The report: the changed cell drawn first, inline and as files for a pull request.
  const std::string page = testing::read_file(dir.path() / "sqlite" / "history.html");
  EXPECT_LT(page.find("<h2>tiny pair 64 B"), page.find("<h2>glibc pair 64 B")) << "the changed cell first";
  EXPECT_NE(page.find("<svg"), std::string::npos);
  for (const char* file : {"series-1.svg", "series-1.png", "series-1.gp", "series-2.png"})
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "sqlite" / "report" / file)) << file;
  // The tiny cell's series as Otava reads it: a row a commit, in order.
  const auto exported = run_cli(
      {"history", "export", "--history", sqlite, "--variant", "tiny", "--out", (dir.path() / "series").string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  std::vector<std::filesystem::path> files;
  std::string names;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "series")) {
    names += entry.path().filename().string() + " ";
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  }
  ASSERT_EQ(files.size(), 1u) << names;
  const auto points = testing::read_csv(files[0]);
  ASSERT_EQ(points.size(), 24u);
  for (std::size_t i = 0; i < points.size(); ++i) {
    EXPECT_EQ(points[i].at("commit"), fmt::format("c{:02d}", i + 1));
    EXPECT_GT(std::stod(points[i].at("instructions_per_op")), 0);
    EXPECT_FALSE(points[i].at("time").empty());
  }
  EXPECT_GT(std::stod(points[12].at("instructions_per_op")), 1.05 * std::stod(points[11].at("instructions_per_op")));
  std::filesystem::remove(sqlite);
  for (const std::string& store : {sqlite, postgres}) {
    std::vector<std::string> args{"history", "rebuild"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    args.insert(args.end(), {"--history", store});
    const auto rebuilt = run_cli(args);
    ASSERT_EQ(rebuilt.exit_code, 0) << rebuilt.err;
  }
  check(sqlite, "sqlite-rebuilt");
  check(postgres, "postgres-rebuilt");
}

// gate --history, on a gated run read from its directory: with fewer than 5 runs like it a
// cell is judged against the baseline, with 5 and more against the runs since its last change
// point; a build whose malloc does more work (tiny v2 where v1 was) is a regression against
// that history, the other backend's cell passes. Counted, for the reason above.
TEST(HistoryEndToEnd, AGateWithHistoryJudgesEachCellAgainstTheRunsSinceItsLastChangePoint) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  testing::TempDir dir;
  const std::string store = (dir.path() / "history.db").string();
  const std::vector<std::string> cells{"--workload",  "pair",   "--size",      "64",         "--align",
                                       "16",          "--live", "8",           "--measure",  "instructions",
                                       "--processes", "1",      "--no-counts", "--no-report"};
  auto run = [&](const std::string& commit, const char* tiny, bool recorded) {
    std::vector<std::string> args{"run",
                                  "--matrix",
                                  "quick",
                                  "--variant",
                                  std::string("backend=system,label=tiny,preload=") + tiny,
                                  "--variant",
                                  "backend=mimalloc,label=mi",
                                  "--out",
                                  (dir.path() / commit).string()};
    args.insert(args.end(), cells.begin(), cells.end());
    if (recorded) args.insert(args.end(), {"--history", store, "--commit", commit});
    const auto ran = run_cli(args);
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
  };
  auto gate = [&](const std::string& commit, int expected) {
    const auto gated =
        run_cli({"gate", "--baseline", (dir.path() / "c01").string(), "--candidate", (dir.path() / commit).string(),
                 "--history", store, "--commit", commit, "--out", (dir.path() / ("gate-" + commit)).string()});
    EXPECT_EQ(gated.exit_code, expected) << commit << ": " << gated.out << gated.err;
    return std::pair{testing::read_json(dir.path() / ("gate-" + commit) / "gate.json"),
                     testing::read_file(dir.path() / ("gate-" + commit) / "gate.md")};
  };
  for (int c = 1; c <= 4; ++c) run(fmt::format("c{:02d}", c), testing::built::kTinyV1, true);
  run("c05", testing::built::kTinyV1, false);
  const auto [four, four_md] = gate("c05", 0);
  for (const auto& cell : four["cells"]) EXPECT_FALSE(cell.contains("history")) << cell.dump();
  EXPECT_NE(four_md.find("every cell was judged against the baseline"), std::string::npos) << four_md;

  run("c06", testing::built::kTinyV1, true);  // recorded, then gated: its own run is no evidence about it
  const auto [five, five_md] = gate("c06", 0);
  ASSERT_EQ(five["cells"].size(), 2u);
  for (const auto& cell : five["cells"]) {
    ASSERT_TRUE(cell.contains("history")) << cell.dump();
    EXPECT_EQ(cell["history"]["points"], 5) << "c01..c05: four runs and the first gate's";
    EXPECT_EQ(cell["history"]["first_commit"], "c01");
    EXPECT_EQ(cell["history"]["last_commit"], "c05");
    EXPECT_TRUE(cell["history"]["change_commit"].is_null());
    EXPECT_EQ(cell["result"], "pass");
  }
  EXPECT_NE(five_md.find("2 of 2 cells were judged against their history"), std::string::npos) << five_md;

  run("c07", testing::built::kTinyV2, false);
  const auto [slower, slower_md] = gate("c07", 1);
  for (const auto& cell : slower["cells"]) {
    ASSERT_TRUE(cell.contains("history")) << cell.dump();
    EXPECT_EQ(cell["history"]["points"], 6);
    const bool touched = cell["cell"].get<std::string>().starts_with("system/");
    EXPECT_EQ(cell["result"], touched ? "REGRESSION" : "pass") << cell.dump();
    if (touched) {
      EXPECT_GT(cell["change"].get<double>(), 0.05) << cell.dump();
    }
  }
  EXPECT_EQ(slower["regressions"], 1) << slower_md;
  EXPECT_EQ(HistoryStore(store).run_count(), 7) << "every gated run recorded once";
}

// Runs `first`..`last` recorded as the run in `run_dir`, every figure halved: a library twice
// as fast from `first` on.
void record_halved(const std::string& store, const std::filesystem::path& run_dir, int first, int last) {
  RunResults faster = load_results((run_dir / "results.json").string());
  for (CellRecord& cell : faster.cells) {
    *cell.summary.ns_per_op /= 2;
    for (ProcessMeasurement& p : cell.processes) p.median_ns_per_op /= 2;
  }
  HistoryStore recording(store);
  for (int c = first; c <= last; ++c) {
    faster.run_id = fmt::format("halved-{}", c);
    ASSERT_TRUE(recording.record(faster, {fmt::format("c{:02d}", c), "", "test", ""}));
  }
}

// gate --history on a candidate it measures: the run recorded, its cell (the same variant as
// run's) judged against the runs that came before.
TEST(HistoryEndToEnd, AMeasuredGateWithHistoryJudgesItsCellAgainstTheRunsBefore) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  testing::TempDir dir;
  const std::string store = (dir.path() / "history.db").string();
  const std::vector<std::string> cells{
      "--backend", "system", "--workload", "pair",         "--size",      "64", "--align",     "16",
      "--live",    "8",      "--measure",  "instructions", "--processes", "1",  "--no-counts", "--no-report"};
  for (int c = 1; c <= 5; ++c) {
    std::vector<std::string> args{"run",
                                  "--matrix",
                                  "quick",
                                  "--history",
                                  store,
                                  "--commit",
                                  fmt::format("c{:02d}", c),
                                  "--out",
                                  (dir.path() / fmt::format("c{:02d}", c)).string()};
    args.insert(args.end(), cells.begin(), cells.end());
    const auto ran = run_cli(args);
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
  }
  const auto gated = run_cli({"gate", "--baseline", (dir.path() / "c01").string(), "--history", store, "--commit",
                              "c06", "--no-report", "--out", (dir.path() / "gate").string()});
  ASSERT_EQ(gated.exit_code, 0) << gated.out << gated.err;
  const auto verdict = testing::read_json(dir.path() / "gate" / "gate.json");
  ASSERT_EQ(verdict["cells"].size(), 1u);
  EXPECT_EQ(verdict["cells"][0]["history"]["points"], 5) << verdict.dump(2);
  EXPECT_EQ(HistoryStore(store).run_count(), 6);

  // Five more runs at half the figure (a library twice as fast from c07 on), and the build
  // gated again is a regression against that segment; counts are not measured twice.
  record_halved(store, dir.path() / "c01", 7, 11);
  const auto slower = run_cli({"gate", "--baseline", (dir.path() / "c01").string(), "--history", store, "--commit",
                               "c12", "--no-report", "--out", (dir.path() / "gate-c12").string()});
  EXPECT_EQ(slower.exit_code, 1) << slower.out << slower.err;
  const auto called = testing::read_json(dir.path() / "gate-c12" / "gate.json");
  ASSERT_EQ(called["cells"].size(), 1u);
  const auto& cell = called["cells"][0];
  EXPECT_EQ(cell["result"], "REGRESSION") << cell.dump(2);
  EXPECT_EQ(cell["history"]["points"], 5);
  EXPECT_EQ(cell["history"]["first_commit"], "c07");
  EXPECT_EQ(cell["history"]["change_commit"], "c07");
  EXPECT_EQ(cell["history"]["runs"], 1) << "counts repeat exactly: nothing to confirm";
  EXPECT_NEAR(cell["change"].get<double>(), 1.0, 0.05);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "gate-c12" / "confirm-history"));
}

// Timed: a regression against the history is measured a second time, and called only when
// the second run alone and both together call it (a run twice as slow as its history).
TEST(HistoryEndToEnd, ARegressionAgainstTheHistoryIsConfirmedByASecondRun) {
  testing::TempDir dir;
  const std::string store = (dir.path() / "history.db").string();
  const auto ran = run_cli({"run",
                            "--matrix",
                            "quick",
                            "--backend",
                            "system",
                            "--workload",
                            "pair",
                            "--size",
                            "64",
                            "--align",
                            "16",
                            "--live",
                            "8",
                            "--samples",
                            "3",
                            "--processes",
                            "2",
                            "--min-batch-ms",
                            "2",
                            "--no-counts",
                            "--no-report",
                            "--out",
                            (dir.path() / "c01").string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  record_halved(store, dir.path() / "c01", 2, 6);
  const auto gated = run_cli({"gate", "--baseline", (dir.path() / "c01").string(), "--history", store, "--commit",
                              "c07", "--no-report", "--out", (dir.path() / "gate").string()});
  EXPECT_EQ(gated.exit_code, 1) << gated.out << gated.err;
  const auto verdict = testing::read_json(dir.path() / "gate" / "gate.json");
  ASSERT_EQ(verdict["cells"].size(), 1u);
  EXPECT_EQ(verdict["cells"][0]["result"], "REGRESSION") << verdict.dump(2);
  EXPECT_EQ(verdict["cells"][0]["history"]["runs"], 2) << "confirmed by a second run";
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "gate" / "confirm-history" / "results.json"));
  EXPECT_NE(testing::read_file(dir.path() / "gate" / "gate.md")
                .find("1 regressions against the history were measured a second time"),
            std::string::npos);
}

}  // namespace
}  // namespace abench
