// Sharding through the real CLI (docs/ci.md): run, compare and calibrate split with
// --shard K/N, joined by abench merge into the files the unsharded command writes, read by
// gate and report like any other; and every refusal of a merge, with exit 2 and its reason.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_file;
using testing::run_cli;

using testing::read_json;
using testing::write_json;

// A small run: 2 backends x (2 workloads x 2 sizes x 2 live counts = 8 cell positions); `more`
// adds options or gives those below other values.
std::vector<std::string> small_run(const std::filesystem::path& out, std::vector<std::string> more = {}) {
  std::vector<std::string> args{"run",
                                "--matrix",
                                "quick",
                                "--backend",
                                "system,mimalloc",
                                "--workload",
                                "allocate,grow",
                                "--size",
                                "64,4096",
                                "--align",
                                "256",
                                "--live",
                                "1,16",
                                "--samples",
                                "3",
                                "--processes",
                                "2",
                                "--min-batch-ms",
                                "0.2",
                                "--seed",
                                "7",
                                "--no-report",
                                "--out",
                                out.string()};
  for (std::size_t i = 0; i < more.size(); ++i) {
    const auto given = std::find(args.begin(), args.end(), more[i]);
    if (given != args.end() && i + 1 < more.size() && !more[i + 1].starts_with("--")) {
      *(given + 1) = more[++i];  // another value for an option above
    } else {
      args.push_back(more[i]);
    }
  }
  return args;
}

std::set<std::string> file_names(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.insert(entry.path().filename());
  return names;
}

// What does not depend on timing: which cells, their status, processes, rounds and counts.
nlohmann::json structure_of(const nlohmann::json& cell) {
  nlohmann::json counts = cell["counts"];
  if (counts.is_object())  // the process's own memory figures vary from process to process
    for (const char* varies : {"peak_rss_bytes", "minor_faults", "allocator_resident_bytes"}) counts.erase(varies);
  return {cell["id"],     cell["variant"],          cell["workload"],
          cell["size"],   cell["requested_align"],  cell["live"],
          cell["status"], cell["processes"].size(), cell["finished_rounds"],
          counts,         cell["samples"]};
}

TEST(ShardEndToEnd, ARunInThreeShardsMergesIntoTheUnshardedRunsCellsCountsAndProtocol) {
  testing::TempDir dir;
  const auto whole = dir.path() / "whole";
  ASSERT_EQ(run_cli(small_run(whole, {"--format", "go"})).exit_code, 0);
  std::vector<std::string> merge{"merge"};
  std::size_t measured = 0;
  for (int k = 1; k <= 3; ++k) {
    const auto out = dir.path() / ("shard" + std::to_string(k));
    const CliResult shard = run_cli(small_run(out, {"--shard", std::to_string(k) + "/3", "--format", "go"}));
    ASSERT_EQ(shard.exit_code, 0) << shard.err;
    const auto json = read_json(out / "results.json");
    EXPECT_EQ(json["shard"]["index"], k);
    EXPECT_EQ(json["shard"]["count"], 3);
    EXPECT_EQ(json["shard"]["plan_cells"], 16);
    measured += json["cells"].size();
    merge.push_back(out.string());
  }
  EXPECT_EQ(measured, 16u);  // each cell in one shard
  const auto merged = dir.path() / "merged";
  merge.insert(merge.end(), {"--out", merged.string(), "--no-report"});
  const CliResult joined = run_cli(merge);
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  EXPECT_NE(joined.out.find("3 shards merged: 16 cells"), std::string::npos) << joined.out;

  const auto a = read_json(merged / "results.json");
  const auto b = read_json(whole / "results.json");
  EXPECT_TRUE(a["complete"].get<bool>());
  EXPECT_FALSE(a.contains("shard"));
  EXPECT_EQ(a["protocol"], b["protocol"]);
  EXPECT_EQ(a["matrix"], b["matrix"]);
  ASSERT_EQ(a["cells"].size(), b["cells"].size());
  for (std::size_t i = 0; i < a["cells"].size(); ++i) {
    EXPECT_EQ(structure_of(a["cells"][i]), structure_of(b["cells"][i])) << i;
    EXPECT_GE(a["cells"][i]["shard"].get<int>(), 1);
  }
  ASSERT_EQ(a["variants"].size(), b["variants"].size());
  for (std::size_t v = 0; v < a["variants"].size(); ++v)
    for (const char* field : {"label", "allocator_version", "malloc_object", "entry_set"})
      EXPECT_EQ(a["variants"][v][field], b["variants"][v][field]) << field;
  EXPECT_EQ(a["merge"]["shards"].size(), 3u);
  // The same command line as the unsharded run, less --shard and --out.
  auto line = b["command_line"].get<std::vector<std::string>>();
  line.erase(line.end() - 4, line.end() - 2);  // --out DIR (then --format go)
  EXPECT_EQ(a["command_line"].get<std::vector<std::string>>(), line);
  // The exports the command asked for, from the joined cells: one benchmark line a cell.
  EXPECT_EQ(testing::split_lines(read_file(merged / "go-bench.txt")).size(),
            testing::split_lines(read_file(whole / "go-bench.txt")).size());
  EXPECT_EQ(file_names(merged), file_names(whole));
  EXPECT_EQ(testing::read_csv(merged / "results.csv").size(), testing::read_csv(whole / "results.csv").size());

  // gate and report read merged results like any other.
  const CliResult gate = run_cli({"gate", "--baseline", merged.string(), "--candidate", whole.string(), "--out",
                                  (dir.path() / "gate").string(), "--no-report"});
  EXPECT_NE(gate.exit_code, 2) << gate.err;
  EXPECT_EQ(read_json(dir.path() / "gate" / "gate.json")["cells"].size(), 16u);
  const CliResult report = run_cli({"report", merged.string()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_TRUE(std::filesystem::exists(merged / "report.html"));
}

TEST(ShardEndToEnd, ACompareInTwoShardsMergesItsTablesAndItsGate) {
  testing::TempDir dir;
  std::vector<std::string> merge{"merge"};
  std::size_t rows = 0;
  for (int k = 1; k <= 2; ++k) {
    const auto out = dir.path() / ("cmp" + std::to_string(k));
    const CliResult shard = run_cli({"compare",
                                     "--baseline",
                                     "backend=system",
                                     "--candidate",
                                     "backend=system,env=ABENCH_SHARD_TEST=1",
                                     "--matrix",
                                     "quick",
                                     "--workload",
                                     "allocate,append",
                                     "--size",
                                     "64,4096",
                                     "--align",
                                     "256",
                                     "--live",
                                     "1",
                                     "--samples",
                                     "3",
                                     "--min-batch-ms",
                                     "0.2",
                                     "--no-counts",
                                     "--seed",
                                     "5",
                                     "--gate",
                                     "--no-report",
                                     "--shard",
                                     std::to_string(k) + "/2",
                                     "--out",
                                     out.string()});
    ASSERT_NE(shard.exit_code, 2) << shard.err;
    rows += testing::read_csv(out / "compare.csv").size();
    merge.push_back(out.string());
  }
  EXPECT_EQ(rows, 4u);
  const auto merged = dir.path() / "merged";
  merge.insert(merge.end(), {"--out", merged.string()});
  const CliResult joined = run_cli(merge, {{"GITHUB_STEP_SUMMARY", (dir.path() / "summary.md").string()}});
  ASSERT_NE(joined.exit_code, 2) << joined.err;
  for (const char* file : {"results.json", "results.csv", "compare.md", "compare.csv", "compare.json", "gate.md",
                           "gate.json", "report.html"})
    EXPECT_TRUE(std::filesystem::exists(merged / file)) << file;
  const auto compare = read_json(merged / "compare.json");
  EXPECT_EQ(compare["rows"].size(), 4u);
  EXPECT_EQ(compare["judged"].get<int>() + compare["undecided"].get<int>(), 4);
  const auto gate = read_json(merged / "gate.json");
  ASSERT_EQ(gate["cells"].size(), 4u);
  EXPECT_EQ(joined.exit_code, gate["exit_code"].get<int>());
  // Both sides of every cell from one shard, paired by round there.
  const auto results = read_json(merged / "results.json");
  std::map<std::string, std::set<int>> shards_of;
  for (const auto& cell : results["cells"])
    shards_of[cell["workload"].get<std::string>() + std::to_string(cell["size"].get<int>())].insert(
        cell["shard"].get<int>());
  for (const auto& [cell, shards] : shards_of) EXPECT_EQ(shards.size(), 1u) << cell;
  for (const auto& cell : gate["cells"]) {
    if (cell["paired"].is_boolean()) {
      EXPECT_TRUE(cell["paired"].get<bool>()) << cell.dump();
    }
  }
  EXPECT_NE(read_file(dir.path() / "summary.md").find("abench gate"), std::string::npos);
  // The merged compare gates like an unsharded one.
  const CliResult again = run_cli({"gate", "--baseline", merged.string(), "--candidate", merged.string(), "--out",
                                   (dir.path() / "regate").string(), "--no-report"});
  EXPECT_NE(again.exit_code, 2) << again.err;
}

TEST(ShardEndToEnd, AnInterruptedShardResumesAndThenMerges) {
  testing::TempDir dir;
  const auto one = dir.path() / "one", two = dir.path() / "two";
  ASSERT_EQ(run_cli(small_run(one, {"--shard", "1/2"})).exit_code, 0);
  ASSERT_EQ(run_cli(small_run(two, {"--shard", "2/2"})).exit_code, 0);
  // Shard 2 as an interrupt leaves it: its last round not done.
  auto json = read_json(two / "results.json");
  testing::as_interrupted_after_round_one(json);
  write_json(two / "results.json", json);
  const CliResult early = run_cli({"merge", one.string(), two.string(), "--out", (dir.path() / "early").string()});
  EXPECT_EQ(early.exit_code, 2);
  EXPECT_NE(early.err.find("abench run --resume " + two.string()), std::string::npos) << early.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "early" / "results.json"));

  const CliResult resumed = run_cli({"run", "--resume", two.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const auto done = read_json(two / "results.json");
  EXPECT_EQ(done["shard"]["index"], 2);
  for (const auto& cell : done["cells"]) EXPECT_EQ(cell["processes"].size(), 2u);
  const CliResult joined =
      run_cli({"merge", one.string(), two.string(), "--out", (dir.path() / "m").string(), "--no-report"});
  EXPECT_EQ(joined.exit_code, 0) << joined.err;
}

TEST(ShardEndToEnd, AGateInTwoShardsJudgesEveryCellOnceMerged) {
  testing::TempDir dir;
  const std::string name = "shard-gate-e2e-" + std::to_string(getpid());
  const auto store = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  // Under qemu one backend and one live count: each worker process costs about a quarter of a
  // second to start there, and what is checked (every cell judged once) is the same for 4 cells.
  const bool emulated = testing::emulator_here().has_value();
  const std::size_t cells_expected = emulated ? 4 : 16;
  std::vector<std::string> base{"--save-baseline", name, "--no-counts"};
  if (emulated) base.insert(base.end(), {"--backend", "system", "--live", "1"});
  ASSERT_EQ(run_cli(small_run(dir.path() / "base", base)).exit_code, 0);
  // Side by side with the stored workers (the default), and against the stored figures.
  for (const std::string mode : {"side-by-side", "stored-figures"}) {
    std::vector<std::string> merge{"merge"};
    for (int k = 1; k <= 2; ++k) {
      const auto out = dir.path() / (mode + std::to_string(k));
      std::vector<std::string> args{"gate",        "--baseline", name,        "--shard", std::to_string(k) + "/2",
                                    "--no-report", "--out",      out.string()};
      if (mode == "stored-figures") args.push_back("--stored-figures");
      // Under qemu every interval stays wide, so a paired gate would add rounds up to 24:
      // four rounds judge the same cells, with a sixth of the workers to start there.
      if (emulated && mode == "side-by-side") args.insert(args.end(), {"--until-interval", "5", "--max-rounds", "4"});
      const CliResult r = run_cli(args);
      ASSERT_NE(r.exit_code, 2) << r.err;
      EXPECT_EQ(read_json(out / "gate.json")["cells"].size(),
                read_json(out / "results.json")["shard"]["plan_ids"].size() / (mode == "side-by-side" ? 2 : 1));
      merge.push_back(out.string());
    }
    merge.insert(merge.end(), {"--out", (dir.path() / (mode + "-merged")).string(), "--no-report"});
    if (mode == "stored-figures") {
      // Judged again from the stored figures, which merge must be named: never taken from a shard.
      const CliResult unnamed = run_cli(merge);
      EXPECT_EQ(unnamed.exit_code, 2) << unnamed.err;
      EXPECT_NE(unnamed.err.find("abench merge --baseline NAME|PATH"), std::string::npos) << unnamed.err;
      EXPECT_FALSE(std::filesystem::exists(dir.path() / (mode + "-merged") / "results.json"));
      merge.insert(merge.end(), {"--baseline", name});
    }
    const CliResult joined = run_cli(merge);
    ASSERT_NE(joined.exit_code, 2) << joined.err;
    const auto gate = read_json(dir.path() / (mode + "-merged") / "gate.json");
    std::set<std::string> cells;
    for (const auto& cell : gate["cells"]) cells.insert(cell["cell"].get<std::string>());
    EXPECT_EQ(cells.size(), cells_expected) << mode;
    EXPECT_EQ(gate["cells"].size(), cells_expected) << mode;
    EXPECT_EQ(joined.exit_code, gate["exit_code"].get<int>());
  }
  std::filesystem::remove_all(store);
}

class MergeRefusal : public ::testing::Test {
 protected:
  // Two shards of one small run, measured once for all the cases.
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    for (int k = 1; k <= 2; ++k)
      ASSERT_EQ(run_cli(small_run(shard(k), {"--shard", std::to_string(k) + "/2", "--no-counts"})).exit_code, 0);
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::filesystem::path shard(int k) { return dir_->path() / ("s" + std::to_string(k)); }

  // A copy of shard k, changed by `edit`.
  static std::filesystem::path edited(int k, const std::string& name,
                                      const std::function<void(nlohmann::json&)>& edit) {
    const auto copy = dir_->path() / name;
    std::filesystem::remove_all(copy);
    std::filesystem::copy(shard(k), copy, std::filesystem::copy_options::recursive);
    auto json = read_json(copy / "results.json");
    edit(json);
    write_json(copy / "results.json", json);
    return copy;
  }

  // The merge exits 2, says all of `expected`, and writes no results.
  static void expect_refused(std::vector<std::string> dirs, const std::vector<std::string>& expected,
                             std::vector<std::string> more = {}) {
    const auto out = dir_->path() / ("out" + std::to_string(++outs_));
    std::vector<std::string> args{"merge"};
    args.insert(args.end(), dirs.begin(), dirs.end());
    args.insert(args.end(), {"--out", out.string()});
    args.insert(args.end(), more.begin(), more.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    for (const std::string& text : expected) EXPECT_NE(r.err.find(text), std::string::npos) << text << " in: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(out / "results.json"));
  }

  static testing::TempDir* dir_;
  static int outs_;
};
testing::TempDir* MergeRefusal::dir_ = nullptr;
int MergeRefusal::outs_ = 0;

TEST_F(MergeRefusal, AMissingShardIsNamed) {
  expect_refused({shard(2).string()}, {"shard 1 of 2 is missing", "given: 2"});
}

TEST_F(MergeRefusal, AShardGivenTwiceOverlaps) {
  expect_refused({shard(1).string(), shard(2).string(), shard(1).string()}, {"shard 1/2 is given twice"});
}

TEST_F(MergeRefusal, ResultsNotMeasuredAsAShard) {
  const auto plain = dir_->path() / "plain";
  ASSERT_EQ(run_cli(small_run(plain, {"--no-counts"})).exit_code, 0);
  expect_refused({plain.string(), shard(2).string()}, {(plain / "results.json").string(), "field 'shard' is missing"});
  expect_refused({(dir_->path() / "nowhere").string()}, {"holds no results.json"});
}

TEST_F(MergeRefusal, ShardsOfDifferentSeedsProtocolsOrMatrices) {
  const auto seeded = dir_->path() / "seed8";
  ASSERT_EQ(run_cli(small_run(seeded, {"--shard", "2/2", "--no-counts", "--seed", "8"})).exit_code, 0);
  expect_refused({shard(1).string(), seeded.string()}, {"field 'protocol.seed' is 7", "but 8", "--seed"});
  const auto samples = dir_->path() / "samples4";
  ASSERT_EQ(run_cli(small_run(samples, {"--shard", "2/2", "--no-counts", "--samples", "4"})).exit_code, 0);
  expect_refused({shard(1).string(), samples.string()}, {"field 'protocol.samples' is 3", "different protocols"});
  const auto sizes = dir_->path() / "sizes";
  ASSERT_EQ(run_cli(small_run(sizes, {"--shard", "2/2", "--no-counts", "--size", "64,8192"})).exit_code, 0);
  expect_refused({shard(1).string(), sizes.string()}, {"field 'matrix.sizes'", "different matrices"});
  const auto three = dir_->path() / "three";
  ASSERT_EQ(run_cli(small_run(three, {"--shard", "2/3", "--no-counts"})).exit_code, 0);
  expect_refused({shard(1).string(), three.string()}, {"field 'shard.count' is 2", "but 3"});
}

TEST_F(MergeRefusal, ShardsOfDifferentAbenchVersionsOrEntryPointSets) {
  expect_refused(
      {shard(1).string(), edited(2, "version", [](auto& j) { j["conditions"]["abench_version"] = "0.0.1"; }).string()},
      {"field 'conditions.abench_version'", "0.0.1", "different versions of abench"});
  expect_refused(
      {shard(1).string(), edited(2, "entry", [](auto& j) { j["variants"][1]["entry_set"] = "portable"; }).string()},
      {"field 'variants[1].entry_set' is native", "but portable", "entry-point sets"});
}

TEST_F(MergeRefusal, AnUnfinishedShard) {
  expect_refused({shard(1).string(), edited(2, "unfinished", [](auto& j) { j["complete"] = false; }).string()},
                 {"shard 2/2 is not finished", "--resume"});
}

TEST_F(MergeRefusal, ShardsOfTwoMachinesUnlessTold) {
  const auto other =
      edited(2, "other-machine", [](auto& j) { j["conditions"]["machine_fingerprint"] = "0123456789abcdef"; });
  expect_refused({shard(1).string(), other.string()},
                 {"field 'conditions.machine_fingerprint'", "0123456789abcdef", "--across-machines"});
  const auto out = dir_->path() / "across";
  const CliResult r = run_cli({"merge", shard(1).string(), other.string(), "--across-machines", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto merged = read_json(out / "results.json");
  EXPECT_EQ(merged["merge"]["machines"], 2);
  std::set<std::string> machines;
  for (const auto& cell : merged["cells"]) machines.insert(cell["machine_fingerprint"].get<std::string>());
  EXPECT_EQ(machines.size(), 2u);
  bool said = false;
  for (const auto& w : merged["conditions"]["warnings"])
    said |= w.get<std::string>().find("on 2 machines") != std::string::npos;
  EXPECT_TRUE(said) << merged["conditions"]["warnings"].dump();
  EXPECT_NE(read_file(out / "report.html").find("on 2 machines"), std::string::npos);
}

TEST(ShardEndToEnd, ShardOptionsAreCheckedBeforeAnythingRuns) {
  testing::TempDir dir;
  auto args = small_run(dir.path() / "a", {"--shard", "4/3"});
  CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'4/3' is not a shard (allowed: K/N"), std::string::npos) << r.err;
  args = small_run(dir.path() / "b", {"--shard", "1/3"});
  args.erase(std::find(args.begin(), args.end(), "--seed"), std::find(args.begin(), args.end(), "--seed") + 2);
  r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give every shard the same --seed"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "a" / "results.json"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "b" / "results.json"));
  r = run_cli({"gate", "--baseline", "x.json", "--candidate", "y.json", "--shard", "1/2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("with --candidate the gate measures nothing"), std::string::npos) << r.err;
}

TEST(ShardEndToEnd, ACalibrateInTwoShardsStoresTheFloorsOfEveryCellOnceMerged) {
  testing::TempDir dir;
  const std::string name = "shard-e2e-" + std::to_string(getpid());
  const auto store = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  std::vector<std::string> merge{"merge"};
  for (int k = 1; k <= 2; ++k) {
    const auto out = dir.path() / ("cal" + std::to_string(k));
    const CliResult r = run_cli({"calibrate",
                                 "--save-noise",
                                 name,
                                 "--runs",
                                 "2",
                                 "--matrix",
                                 "quick",
                                 "--backend",
                                 "system",
                                 "--workload",
                                 "allocate,append",
                                 "--size",
                                 "64,4096",
                                 "--align",
                                 "256",
                                 "--live",
                                 "1",
                                 "--samples",
                                 "3",
                                 "--processes",
                                 "2",
                                 "--min-batch-ms",
                                 "0.2",
                                 "--no-counts",
                                 "--seed",
                                 "3",
                                 "--shard",
                                 std::to_string(k) + "/2",
                                 "--out",
                                 out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_json(out / "noise.json")["cells"].size(), 2u);
    EXPECT_FALSE(std::filesystem::exists(store / "noise.json"));  // a part is never stored
    merge.push_back(out.string());
  }
  // Without --save-noise the merge stores nothing, whatever name the shards' files give.
  std::vector<std::string> unstored = merge;
  unstored.insert(unstored.end(), {"--out", (dir.path() / "unstored").string()});
  ASSERT_EQ(run_cli(unstored).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(store / "noise.json"));
  EXPECT_EQ(read_json(dir.path() / "unstored" / "noise.json")["cells"].size(), 4u);

  // A shard edited to claim a 1000% floor: the merge judges the floors again from the runs.
  auto part = read_json(dir.path() / "cal1" / "noise.json");
  for (auto& [key, floor] : part["cells"].items()) floor = 10.0;
  part["method"] = "EVIL";
  std::ofstream(dir.path() / "cal1" / "noise.json") << part.dump();
  merge.insert(merge.end(), {"--save-noise", name, "--out", (dir.path() / "merged").string()});
  const CliResult joined = run_cli(merge);
  ASSERT_EQ(joined.exit_code, 0) << joined.err;
  const auto noise = read_json(store / "noise.json");
  // The floors are those found from the same runs before the edit, to the bit: the edit changed nothing.
  // (Not a bound on their size: two runs of three samples on a loaded machine can be noisy.)
  const auto before_edit = read_json(dir.path() / "unstored" / "noise.json");
  EXPECT_EQ(noise["cells"], before_edit["cells"]);
  for (const auto& [key, floor] : noise["cells"].items()) EXPECT_NE(floor.get<double>(), 10.0) << key;
  EXPECT_NE(noise["method"], "EVIL");  // what the file says of itself is written anew too
  std::filesystem::remove_all(store);
  EXPECT_EQ(noise["cells"].size(), 4u);
  EXPECT_FALSE(noise.contains("shard"));
  for (int run = 1; run <= 2; ++run)
    EXPECT_EQ(read_json(dir.path() / "merged" / ("run" + std::to_string(run)) / "results.json")["cells"].size(), 4u);
}

}  // namespace
}  // namespace abench
