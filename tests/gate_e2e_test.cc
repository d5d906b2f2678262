// abench gate end to end: exit codes for every case, through the real CLI. Verdicts that
// must fail are built from a known, large margin (scaled samples, a plugin doing ~30x the
// work), and passes from identical data or generous thresholds, so none depends on how
// noisy the machine is.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "src/util/atomic_file.h"
#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"
#include "tests/run_alone.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_file;
using testing::run_cli;

// One small run, shared by the tests of this file.
class GateEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    // 4 processes: the fewest a side whose rank-sum interval (two files, unpaired) reaches 95%.
    const CliResult r = run_cli({"run",
                                 "--matrix",
                                 "quick",
                                 "--backend",
                                 "system,mimalloc",
                                 "--size",
                                 "64",
                                 "--align",
                                 "256",
                                 "--live",
                                 "1",
                                 "--samples",
                                 "5",
                                 "--processes",
                                 "4",
                                 "--min-batch-ms",
                                 "0.2",
                                 "--no-counts",
                                 "--out",
                                 (dir_->path() / "base").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The verdicts below must not depend on this machine's noise: keep the real file's
    // shape and replace its samples with steady ones (1% spread), identical for both sides.
    const auto path = dir_->path() / "base" / "results.json";
    auto json = nlohmann::json::parse(read_file(path));
    for (auto& cell : json["cells"])
      for (auto& p : cell["processes"]) {
        int i = 0;
        for (auto& s : p["samples_ns_per_op"]) s = 100.0 * (1 + 0.01 * ((i++ * 7) % 3 - 1));
      }
    write_file_atomically(path, json.dump());
  }
  static void TearDownTestSuite() { delete dir_; }

  static std::string base() { return (dir_->path() / "base" / "results.json").string(); }

  // A copy of the baseline with the samples of one workload multiplied by `factor`, as
  // another run would be (its own start time: nothing to pair round by round).
  static std::string scaled(const std::string& workload, double factor, const std::string& name) {
    auto json = nlohmann::json::parse(read_file(base()));
    json["run_id"] = "another-run";
    for (auto& cell : json["cells"])
      if (cell["workload"] == workload)
        for (auto& p : cell["processes"])
          for (auto& s : p["samples_ns_per_op"]) s = s.get<double>() * factor;
    const auto path = dir_->path() / name;
    write_file_atomically(path, json.dump());
    return path.string();
  }

  static testing::TempDir* dir_;
};
testing::TempDir* GateEndToEnd::dir_ = nullptr;

TEST_F(GateEndToEnd, IdenticalResultsPass) {
  testing::TempDir out;
  const CliResult r = run_cli({"gate", "--baseline", base(), "--candidate", scaled("none", 1.0, "same.json"), "--out",
                               out.path().string() + "/g"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("regressions: 0"), std::string::npos) << r.out;
  const auto verdict = nlohmann::json::parse(read_file(out.path() / "g" / "gate.json"));
  EXPECT_EQ(verdict["exit_code"], 0);
  EXPECT_EQ(verdict["cells"].size(), 8u);
}

TEST_F(GateEndToEnd, ACandidateSlowerOnOneWorkloadFailsOnExactlyThoseCells) {
  // 50% slower: far outside the spread between processes on any machine, so the test
  // cannot flake; the closing note of issue 5 measures a real 10% on this machine.
  testing::TempDir out;
  const std::string slower = scaled("grow", 1.50, "slower.json");
  const CliResult r =
      run_cli({"gate", "--baseline", base(), "--candidate", slower, "--out", out.path().string() + "/g"},
              {{"GITHUB_STEP_SUMMARY", (out.path() / "summary.md").string()}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto verdict = nlohmann::json::parse(read_file(out.path() / "g" / "gate.json"));
  for (const auto& cell : verdict["cells"]) {
    const bool grow = cell["cell"].get<std::string>().find("/grow/") != std::string::npos;
    EXPECT_EQ(cell["result"], grow ? "REGRESSION" : "pass") << cell.dump();
  }
  EXPECT_EQ(verdict["regressions"], 2);  // grow on each of the 2 backends
  EXPECT_NE(read_file(out.path() / "summary.md").find("### abench gate: REGRESSION"), std::string::npos);
  // A threshold above the change lets it pass.
  const CliResult lenient = run_cli({"gate", "--baseline", base(), "--candidate", slower, "--threshold", "60", "--out",
                                     out.path().string() + "/lenient"});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.out;
}

// A gate passes only what it judged: too few processes, no cells, or figures that are no
// times are never a pass.
TEST_F(GateEndToEnd, WhatCannotBeJudgedNeverPasses) {
  testing::TempDir dir;
  auto json = nlohmann::json::parse(read_file(base()));
  // 3 a side, as a run of 3 processes would have them (the reader refuses rounds beyond the plan's).
  json["protocol"]["processes"] = 3;
  for (auto& cell : json["cells"]) {
    cell["processes"].erase(cell["processes"].end() - 1);
    cell["finished_rounds"] = {1, 2, 3};
  }
  const std::string three = dir.write("three.json", json.dump());
  json["run_id"] = "another-run";
  const std::string other = dir.write("other-three.json", json.dump());
  CliResult r = run_cli({"gate", "--baseline", three, "--candidate", other, "--out", dir.path().string() + "/three"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("undecided: 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("UNDECIDED: 3 and 3 processes of different runs cannot reach 95.0% (at most 90.0%): use "
                       "--processes 4"),
            std::string::npos)
      << r.out;

  json = nlohmann::json::parse(read_file(base()));
  json["cells"] = nlohmann::json::array();
  json["workers"] = nlohmann::json::array();  // what they ran is gone with the cells
  const std::string empty = dir.write("empty.json", json.dump());
  r = run_cli({"gate", "--baseline", empty, "--candidate", empty, "--out", dir.path().string() + "/empty"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.out.find("No cell to judge"), std::string::npos) << r.out;

  json = nlohmann::json::parse(read_file(base()));
  for (auto& cell : json["cells"])
    for (auto& p : cell["processes"])
      for (auto& s : p["samples_ns_per_op"]) s = 0.0;
  const std::string zeros = dir.write("zeros.json", json.dump());
  r = run_cli({"gate", "--baseline", zeros, "--candidate", scaled("none", 1.0, "same.json"), "--out",
               dir.path().string() + "/zeros"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_EQ(r.out.find("| pass |"), std::string::npos) << r.out;
}

TEST_F(GateEndToEnd, BadOrMismatchedBaselinesExitTwo) {
  testing::TempDir dir;
  auto json = nlohmann::json::parse(read_file(base()));
  json["schema_version"] = 99;
  const std::string future = dir.write("future.json", json.dump());
  json = nlohmann::json::parse(read_file(base()));
  json["cells"].erase(json["cells"].begin());
  for (std::size_t i = 0; i < json["cells"].size(); ++i) json["cells"][i]["id"] = i;  // a file of fewer cells
  json["workers"] = nlohmann::json::array();  // which named the cells as they were
  const std::string fewer = dir.write("fewer.json", json.dump());
  const std::string malformed = dir.write("malformed.json", "{\"schema\": \"abench.results\",\n oops");
  struct Case {
    std::vector<std::string> args;
    std::string must_mention;
  };
  const std::vector<Case> cases{
      {{"--baseline", malformed, "--candidate", base()}, "malformed JSON at line 2"},
      {{"--baseline", future, "--candidate", base()}, "field 'schema_version' is 99, this abench reads version 1"},
      {{"--baseline", fewer, "--candidate", base()}, "incompatible matrices: 0 cells of the baseline"},
      {{"--baseline", "no-such-baseline"}, "no stored baseline 'no-such-baseline'"},
      {{"--baseline", dir.write("other.json", "{\"a\": 1}"), "--candidate", base()}, "not an abench results file"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"gate"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << r.err;
  }
}

// A baseline from another architecture: refused, whether the candidate is a file or
// measured now, before anything runs.
TEST_F(GateEndToEnd, ABaselineOfAnotherArchitectureIsRefused) {
  testing::TempDir dir;
  auto json = nlohmann::json::parse(read_file(base()));
  const std::string here = json["conditions"]["architecture"];
  const std::string other = here == "aarch64" ? "x86_64" : "aarch64";
  json["conditions"]["architecture"] = other;
  const std::string foreign = dir.write("foreign.json", json.dump());
  const CliResult files = run_cli({"gate", "--baseline", foreign, "--candidate", base(), "--no-report"});
  EXPECT_EQ(files.exit_code, 2) << files.err;
  EXPECT_NE(files.err.find(foreign + ": field 'conditions.architecture' is '" + other + "' but the candidate"),
            std::string::npos)
      << files.err;
  const CliResult fresh =
      run_cli({"gate", "--baseline", foreign, "--matrix", "quick", "--out", (dir.path() / "never").string()});
  EXPECT_EQ(fresh.exit_code, 2) << fresh.err;
  EXPECT_NE(fresh.err.find("but this machine is " + here), std::string::npos) << fresh.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "never"));
}

TEST_F(GateEndToEnd, AFailedCandidateCellExitsThree) {
  testing::TempDir dir;
  auto json = nlohmann::json::parse(read_file(base()));
  json["cells"][0]["status"] = "failed";  // as abench writes a cell whose worker crashed
  json["cells"][0]["errors"] = {"worker system/exact (round 1) killed by signal 11 (SIGSEGV) while running this cell"};
  json["cells"][0]["processes"] = nlohmann::json::array();
  const CliResult r = run_cli({"gate", "--baseline", base(), "--candidate", dir.write("failed.json", json.dump()),
                               "--out", dir.path().string() + "/g"});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_NE(r.out.find("failed: 1"), std::string::npos);
}

TEST(GateCompareEndToEnd, AReallySlowerPluginFailsAndTheSamePluginPasses) {
  ABENCH_RUNS_ALONE();
  testing::TempDir dir;
  auto gate = [&](const std::string& candidate, const std::string& out) {
    return run_cli({"compare",
                    "--gate",
                    "--threshold",
                    "20",
                    "--baseline",
                    std::string("plugin=") + testing::built::kMallocSubject,
                    "--candidate",
                    "plugin=" + candidate,
                    "--matrix",
                    "quick",
                    "--backend",
                    "jemalloc",
                    "--workload",
                    "allocate",
                    "--size",
                    "64",
                    "--live",
                    "1",
                    "--samples",
                    "5",
                    "--min-batch-ms",
                    "0.5",
                    "--no-counts",
                    "--out",
                    (dir.path() / out).string()});
  };
  const CliResult slow = gate(testing::built::kSlowSubject, "slow");
  EXPECT_EQ(slow.exit_code, 1) << slow.out << slow.err;
  EXPECT_NE(slow.out.find("REGRESSION"), std::string::npos);
  // The regression was measured a second time and confirmed on both runs' rounds.
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "slow" / "confirm" / "results.json"));
  const auto verdict = nlohmann::json::parse(read_file(dir.path() / "slow" / "gate.json"));
  ASSERT_EQ(verdict["notes"].size(), 1u);
  // Both cells (allocate 64 at two alignments) stand as regressions after the second run and
  // none is cleared. Which run first showed each is noise: under qemu the first run once left
  // one cell unclear and the second run found it ("1 confirmed, 0 cleared, 1 found").
  EXPECT_EQ(verdict["regressions"], 2) << verdict.dump();
  EXPECT_NE(verdict["notes"][0].get<std::string>().find(" confirmed, 0 cleared, "), std::string::npos)
      << verdict["notes"][0];
  const CliResult same = gate(testing::built::kMallocSubject, "same");
  // The same plugin is never a regression; a cell whose interval still reaches past 20% (an
  // emulator's noise can) is UNCLEAR and the gate exits 3 rather than vouch for it.
  const auto same_verdict = nlohmann::json::parse(read_file(dir.path() / "same" / "gate.json"));
  EXPECT_EQ(same_verdict["regressions"], 0) << same.out;
  EXPECT_EQ(same.exit_code, same_verdict["unclear"].get<int>() > 0 ? 3 : 0) << same.out << same.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "same" / "confirm"));
}

TEST(GateBaselineEndToEnd, SaveABaselineThenGateAFreshRunAgainstIt) {
  ABENCH_RUNS_ALONE();
  testing::TempDir dir;
  const std::string name = "e2e-" + std::to_string(getpid());
  const auto stored = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  const std::vector<std::string> axes{"--matrix",   "quick", "--backend",   "system", "--workload",     "allocate",
                                      "--size",     "64",    "--align",     "256",    "--live",         "1",
                                      "--samples",  "5",     "--processes", "3",      "--min-batch-ms", "0.5",
                                      "--no-counts"};
  std::vector<std::string> save{"run", "--save-baseline", name, "--out", (dir.path() / "saved").string()};
  save.insert(save.end(), axes.begin(), axes.end());
  ASSERT_EQ(run_cli(save).exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(stored / "workers" / "abench-worker-system"));

  // By default the stored worker is measured again, beside the candidate, in one run.
  const CliResult r = run_cli({"gate", "--baseline", name, "--threshold", "50", "--out", (dir.path() / "g").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto measured = nlohmann::json::parse(read_file(dir.path() / "g" / "results.json"));
  ASSERT_EQ(measured["cells"].size(), 2u);
  EXPECT_EQ(measured["cells"][0]["side"], "baseline");
  EXPECT_EQ(measured["cells"][1]["side"], "candidate");
  EXPECT_NE(measured["cells"][0]["variant"].get<std::string>().find("@baseline"), std::string::npos);
  EXPECT_EQ(measured["protocol"]["processes"], 6);  // the 6 rounds a verdict needs, though the baseline had 3
  EXPECT_EQ(measured["protocol"]["seed"],
            nlohmann::json::parse(read_file(stored / "results.json"))["protocol"]["seed"]);
  const auto verdict = nlohmann::json::parse(read_file(dir.path() / "g" / "gate.json"));
  ASSERT_EQ(verdict["notes"].size(), 1u);
  EXPECT_NE(verdict["notes"][0].get<std::string>().find("measured again beside the candidate"), std::string::npos);

  // --stored-figures: a fresh run of the candidate alone, judged against the stored figures.
  std::vector<std::string> check{"gate",        "--baseline", name,    "--stored-figures",
                                 "--threshold", "50",         "--out", (dir.path() / "s").string()};
  check.insert(check.end(), axes.begin(), axes.end());
  const CliResult figures = run_cli(check);
  // Figures of two runs are not paired, and 3 processes a side cannot reach 95% unpaired:
  // the gate says so and does not pass.
  EXPECT_EQ(figures.exit_code, 3) << figures.out << figures.err;
  EXPECT_NE(figures.out.find("UNDECIDED: 3 and 3 processes of different runs cannot reach 95.0%"), std::string::npos)
      << figures.out;
  const auto alone = nlohmann::json::parse(read_file(dir.path() / "s" / "results.json"));
  EXPECT_EQ(alone["cells"].size(), 1u);
  EXPECT_NE(read_file(dir.path() / "s" / "gate.md").find("stored figures"), std::string::npos);

  // A stored worker that is missing is a usage error naming the backend.
  std::filesystem::remove(stored / "workers" / "abench-worker-system");
  std::filesystem::create_directories(stored / "workers");
  const CliResult missing = run_cli({"gate", "--baseline", name, "--out", (dir.path() / "m").string()});
  std::filesystem::remove_all(stored);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no worker for backend 'system'"), std::string::npos) << missing.err;
  const CliResult bad = run_cli({"run", "--save-baseline", "../escape", "--matrix", "quick"});
  EXPECT_EQ(bad.exit_code, 2);
}

// A candidate that is really slower than its stored baseline fails, and the regression is
// confirmed by a second run. The stored worker is a wrapper that starts the built worker with
// glibc's defaults; the gate runs with tcache off and perturb on (every malloc and free fills
// the block: ~2 x 4 KiB of memset per buffer), which the built worker on the candidate side
// inherits. Same code, a known large slowdown on one side only. At alignment 1 (malloc, not
// posix_memalign): glibc 2.36's aligned path scans its bins with tcache on, and its cost then
// moves with the heap's shape from process to process (a compare here: +94% [+41%, +127%] at
// 256, +377% [+360%, +413%] at 1), so one run's second look could clear a real regression.
TEST(GateBaselineEndToEnd, AReallySlowerCandidateFailsAndTheSecondRunConfirmsIt) {
  ABENCH_RUNS_ALONE();
  // Under qemu (aarch64 CI) the emulator's own costs decide which side is slower: on this VM
  // at 923fee1 the side with tcache off and perturb on ran 44-46% faster than glibc's defaults
  // behind the wrapper, with or without start-ahead, and +0.7% when both sides had them.
  ABENCH_SKIP_UNDER_EMULATION("the slowdown from GLIBC_TUNABLES is a claim about a CPU's timing");
  testing::TempDir dir;
  const std::string name = "confirm-e2e-" + std::to_string(getpid());
  const auto stored = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  ASSERT_EQ(run_cli({"run",      "--save-baseline",
                     name,       "--matrix",
                     "quick",    "--backend",
                     "system",   "--workload",
                     "allocate", "--size",
                     "4096",     "--align",
                     "1",        "--live",
                     "1",        "--samples",
                     "5",        "--min-batch-ms",
                     "0.5",      "--no-counts",
                     "--out",    (dir.path() / "saved").string()})
                .exit_code,
            0);
  const auto worker = stored / "workers" / "abench-worker-system";
  write_file_atomically(
      worker, "#!/bin/sh\nexec env -u GLIBC_TUNABLES " + std::string(testing::built::kWorkerSystem) + " \"$@\"\n");
  std::filesystem::permissions(worker, std::filesystem::perms::owner_all);
  const CliResult r = run_cli({"gate", "--baseline", name, "--out", (dir.path() / "g").string()},
                              {{"GLIBC_TUNABLES", "glibc.malloc.tcache_count=0:glibc.malloc.perturb=165"}});
  std::filesystem::remove_all(stored);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto verdict = nlohmann::json::parse(read_file(dir.path() / "g" / "gate.json"));
  ASSERT_EQ(verdict["cells"].size(), 1u);
  EXPECT_EQ(verdict["cells"][0]["result"], "REGRESSION");
  EXPECT_GT(verdict["cells"][0]["change"].get<double>(), 0.2);
  ASSERT_EQ(verdict["notes"].size(), 2u);
  EXPECT_NE(verdict["notes"][1].get<std::string>().find("1 cell regressed in the first run"), std::string::npos);
  EXPECT_NE(verdict["notes"][1].get<std::string>().find("1 regression confirmed, 0 cleared"), std::string::npos)
      << verdict["notes"][1];
  const auto second = nlohmann::json::parse(read_file(dir.path() / "g" / "confirm" / "results.json"));
  EXPECT_GE(second["cells"][1]["processes"].size(), 6u);  // rounds toward the threshold's width, as the first run
}

}  // namespace
}  // namespace abench

namespace abench {
namespace {

TEST(CalibrateEndToEnd, StoresANoiseFloorPerCellThatTheGateApplies) {
  ABENCH_RUNS_ALONE();
  testing::TempDir dir;
  const std::string name = "calibrate-e2e-" + std::to_string(getpid());
  const std::vector<std::string> axes{
      "--matrix",   "quick", "--backend",   "system", "--workload",     "allocate,append",
      "--size",     "64",    "--align",     "256",    "--live",         "1",
      "--samples",  "3",     "--processes", "2",      "--min-batch-ms", "0.2",
      "--no-counts"};
  auto with_axes = [&](std::vector<std::string> args) {
    args.insert(args.end(), axes.begin(), axes.end());
    return args;
  };
  const auto stored = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  // No baseline stored yet: plain runs one after another.
  const testing::CliResult cal = testing::run_cli(
      with_axes({"calibrate", "--save-noise", name, "--runs", "2", "--out", (dir.path() / "cal").string()}));
  ASSERT_EQ(cal.exit_code, 0) << cal.err;
  const auto noise = nlohmann::json::parse(testing::read_file(stored / "noise.json"));
  EXPECT_EQ(noise["schema"], "abench.noise");
  EXPECT_EQ(noise["runs"], 2);
  EXPECT_NE(noise["method"].get<std::string>().find("between any two unchanged runs"), std::string::npos);
  ASSERT_EQ(noise["cells"].size(), 2u);
  for (const auto& [key, floor] : noise["cells"].items()) EXPECT_GE(floor.get<double>(), 0.0) << key;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "cal" / "run1" / "results.json"));
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "cal" / "run2" / "results.json"));

  ASSERT_EQ(
      testing::run_cli(with_axes({"run", "--save-baseline", name, "--out", (dir.path() / "base").string()})).exit_code,
      0);
  const testing::CliResult gate =
      testing::run_cli({"gate", "--baseline", name, "--threshold", "0", "--out", (dir.path() / "g").string()});
  const auto verdict = nlohmann::json::parse(testing::read_file(dir.path() / "g" / "gate.json"));
  for (const auto& cell : verdict["cells"]) {
    // With a threshold of 0 the bar is exactly k x the stored floor: the gate applied it.
    const double floor = noise["cells"][cell["cell"].get<std::string>()].get<double>();
    EXPECT_DOUBLE_EQ(cell["noise_floor"].get<double>(), floor);
    EXPECT_DOUBLE_EQ(cell["applied_threshold"].get<double>(), 1.5 * floor);
  }
  EXPECT_NE(gate.exit_code, 2) << gate.err;

  // With the baseline and its workers stored: the gate's own side-by-side comparison, A/A,
  // with the baseline's matrix and protocol (no --matrix), 6 processes a side.
  const testing::CliResult again =
      testing::run_cli({"calibrate", "--save-noise", name, "--runs", "2", "--out", (dir.path() / "cal2").string()});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  const auto side_by_side = nlohmann::json::parse(testing::read_file(stored / "noise.json"));
  EXPECT_NE(side_by_side["method"].get<std::string>().find("interleaved A/A"), std::string::npos);
  EXPECT_EQ(side_by_side["processes"], 6);
  EXPECT_EQ(side_by_side["cells"].size(), 2u);
  const auto run1 = nlohmann::json::parse(testing::read_file(dir.path() / "cal2" / "run1" / "results.json"));
  EXPECT_EQ(run1["cells"].size(), 4u);  // two cells, two sides

  // A build that is not the stored one cannot calibrate against it.
  {
    std::ofstream changed(stored / "workers" / "abench-worker-system", std::ios::app | std::ios::binary);
    changed << '\0';
  }
  const testing::CliResult changed =
      testing::run_cli({"calibrate", "--save-noise", name, "--runs", "2", "--out", (dir.path() / "cal3").string()});
  std::filesystem::remove_all(stored);
  EXPECT_EQ(changed.exit_code, 2);
  EXPECT_NE(changed.err.find("store the baseline again from this build"), std::string::npos) << changed.err;
}

}  // namespace
}  // namespace abench

namespace abench {
namespace {

// abench's own CI gate: the flow of docs/ci.md on a small matrix. Store a baseline (figures
// and workers), calibrate its noise floors, then gate the unchanged build against it: the
// stored workers measured again beside the built ones, 6 processes a side, paired by round.
// It must pass. The instruction-count A/A is
// InstructionsEndToEnd.CountsAreIdenticalAcrossRunsAndTheGatePassesThem.
TEST(CiGate, AnUnchangedBuildIsNeverCalledARegressionByItsOwnGate) {
  ABENCH_RUNS_ALONE();
  // What it asserts is how a CPU's noise meets the gate's rule; an emulator's noise (code
  // translated on the fly, with other tests running beside it) is not that.
  ABENCH_SKIP_UNDER_EMULATION("the unchanged-build gate is a claim about a CPU's timing noise");
  // The workers are never sanitized, so the claim is the plain build's to make; the gate's code
  // runs sanitized in every other gate test.
  if (testing::built::kSanitized) GTEST_SKIP() << "the plain build makes this claim about the workers' noise";
  testing::TempDir dir;
  const std::string name = "ci-gate-" + std::to_string(getpid());
  const auto stored = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  const testing::CliResult save = testing::run_cli({"run", "--save-baseline", name, "--matrix", "quick", "--workload",
                                                    "allocate,append", "--size", "64,4096", "--align", "256", "--live",
                                                    "1", "--no-counts", "--out", (dir.path() / "base").string()});
  ASSERT_EQ(save.exit_code, 0) << save.err;
  const testing::CliResult calibrate =
      testing::run_cli({"calibrate", "--save-noise", name, "--out", (dir.path() / "cal").string()});
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.err;
  const testing::CliResult gate = testing::run_cli({"gate", "--baseline", name, "--out", (dir.path() / "g").string()});
  std::filesystem::remove_all(stored);
  EXPECT_NE(gate.out.find("regressions: 0"), std::string::npos) << gate.out;
  const auto verdict = nlohmann::json::parse(testing::read_file(dir.path() / "g" / "gate.json"));
  EXPECT_EQ(verdict["cells"].size(), 12u);  // 3 backends x 2 workloads x 2 sizes
  EXPECT_EQ(verdict["regressions"], 0);
  EXPECT_EQ(verdict["failed"], 0);
  EXPECT_EQ(verdict["undecided"], 0);
  // The gate's promise is no regression on an unchanged build. A chance "improvement" passes
  // too (with 12 cells at 1 - 2/64 coverage no rare event on a loaded machine). A cell whose
  // interval still reaches past its threshold after the rounds toward it is UNCLEAR and the
  // gate exits 3 rather than vouch for it: on this VM's noise 0 and 2 of these 12 cells in two
  // runs (docs/ci.md), so either exit is this build's honest answer; a regression never is.
  EXPECT_EQ(gate.exit_code, verdict["unclear"].get<int>() > 0 ? 3 : 0) << gate.out;
  for (const auto& cell : verdict["cells"]) {
    const std::string result = cell["result"].get<std::string>();
    EXPECT_TRUE(result == "pass" || result == "improvement" || result == "UNCLEAR") << cell.dump();
    if (result == "UNCLEAR") {
      EXPECT_GT(cell["interval"][1].get<double>(), cell["applied_threshold"].get<double>()) << cell.dump();
      EXPECT_EQ(cell["call"], "unclear") << cell.dump();
    }
  }
}

}  // namespace
}  // namespace abench
