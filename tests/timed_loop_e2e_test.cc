// The timed loops' identity end to end (harness/timed_loop.h): each worker names the loop it
// runs, every results file keeps it, and resume, merge, the gate (both its roads and two
// files) and the history refuse or keep apart figures that another loop measured, naming both.
// "Another loop" is a file edited as another build would have written it, or a stored worker
// whose identity bytes are those of another build.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "tests/built_paths.h"
#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_file;
using testing::read_json;
using testing::run_cli;
using testing::write_json;

constexpr const char* kOtherLoop = "0123456789abcdef";

// One cell a backend (or one a live count given with --live), measured briefly.
std::vector<std::string> brief_cell_run(const std::filesystem::path& out, const std::string& backends,
                                        std::vector<std::string> more = {}) {
  std::vector<std::string> args{"run",         "--matrix",    "quick", "--backend",      backends,    "--workload",
                                "allocate",    "--size",      "64",    "--align",        "16",        "--samples",
                                "3",           "--processes", "2",     "--min-batch-ms", "0.2",       "--no-counts",
                                "--no-report", "--seed",      "3",     "--out",          out.string()};
  if (std::find(more.begin(), more.end(), "--live") == more.end()) more.insert(more.end(), {"--live", "1"});
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string timed_loop_in(const nlohmann::json& results, const std::string& backend) {
  for (const auto& v : results["variants"])
    if (v["backend"] == backend) return v.value("timed_loop", "");
  return "";
}

// Another build's loop in a results file, for every variant of `backend`.
void give_other_loop_in(const std::filesystem::path& results, const std::string& backend) {
  auto json = read_json(results);
  for (auto& v : json["variants"])
    if (v["backend"] == backend) v["timed_loop"] = kOtherLoop;
  write_json(results, json);
}

// A copy of `worker` at `to` whose identity bytes name another loop, as a worker built from
// another cell_runner.cc would; false when the worker does not hold `loop`.
bool copy_with_other_loop(const std::filesystem::path& worker, const std::string& loop,
                          const std::filesystem::path& to) {
  std::string bytes = read_file(worker);
  const auto at = bytes.find(loop);
  if (loop.empty() || at == std::string::npos) return false;
  bytes.replace(at, loop.size(), kOtherLoop);
  std::filesystem::remove(to);
  std::ofstream(to, std::ios::binary) << bytes;
  std::filesystem::permissions(to, std::filesystem::perms::owner_all);
  return true;
}

TEST(TimedLoopEndToEnd, EachWorkerNamesItsLoopAndEveryResultKeepsIt) {
  testing::TempDir dir;
  ASSERT_EQ(run_cli(brief_cell_run(dir.path() / "a", "system,jemalloc")).exit_code, 0);
  ASSERT_EQ(run_cli(brief_cell_run(dir.path() / "b", "system")).exit_code, 0);
  const auto a = read_json(dir.path() / "a" / "results.json");
  const std::regex hex("[0-9a-f]{16}");
  const std::string system = timed_loop_in(a, "system"), jemalloc = timed_loop_in(a, "jemalloc");
  EXPECT_TRUE(std::regex_match(system, hex)) << system;
  EXPECT_TRUE(std::regex_match(jemalloc, hex)) << jemalloc;
  // jemalloc's loop calls mallocx and sdallocx where glibc's calls malloc and free.
  EXPECT_NE(system, jemalloc);
  // The same worker names the same loop in every run.
  EXPECT_EQ(timed_loop_in(read_json(dir.path() / "b" / "results.json"), "system"), system);
  // The worker file holds it, as the generated source gave it.
  const std::string worker = read_file(testing::built::kWorkerSystem);
  EXPECT_NE(worker.find(system), std::string::npos);
}

TEST(TimedLoopEndToEnd, ResumeRefusesAFileAnotherLoopBegan) {
  testing::TempDir dir;
  const auto out = dir.path() / "r";
  ASSERT_EQ(run_cli(brief_cell_run(out, "system,jemalloc")).exit_code, 0);
  // As an interrupt leaves it (round 2 not run), written by a build with another loop.
  auto json = read_json(out / "results.json");
  testing::as_interrupted_after_round_one(json);
  const std::string own = json["variants"][1]["timed_loop"];
  json["variants"][1]["timed_loop"] = kOtherLoop;
  write_json(out / "results.json", json);
  const std::string before = read_file(out / "results.json");
  const CliResult refused = run_cli({"run", "--resume", out.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find(std::string("with timed loop ") + kOtherLoop), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("now runs timed loop " + own), std::string::npos) << refused.err;
  EXPECT_EQ(read_file(out / "results.json"), before) << "nothing was run";

  // A file from before workers named their loops: nothing proves its loop is this one.
  json["variants"][1].erase("timed_loop");
  write_json(out / "results.json", json);
  const CliResult older = run_cli({"run", "--resume", out.string()});
  EXPECT_EQ(older.exit_code, 2);
  EXPECT_NE(older.err.find("did not name"), std::string::npos) << older.err;

  json["variants"][1]["timed_loop"] = own;
  write_json(out / "results.json", json);
  const CliResult resumed = run_cli({"run", "--resume", out.string()});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.err;
}

TEST(TimedLoopEndToEnd, MergeRefusesShardsOfTwoLoops) {
  testing::TempDir dir;
  const auto one = dir.path() / "one", two = dir.path() / "two";
  // Four cells of one backend: each shard runs its worker.
  ASSERT_EQ(run_cli(brief_cell_run(one, "system", {"--shard", "1/2", "--live", "1,2,3,4"})).exit_code, 0);
  ASSERT_EQ(run_cli(brief_cell_run(two, "system", {"--shard", "2/2", "--live", "1,2,3,4"})).exit_code, 0);
  give_other_loop_in(two / "results.json", "system");
  const CliResult refused = run_cli({"merge", one.string(), two.string(), "--out", (dir.path() / "m").string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find(".timed_loop"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("different timed loops"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(kOtherLoop), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "m" / "results.json"));
}

TEST(TimedLoopEndToEnd, TheGateRefusesABaselineAnotherLoopMeasured) {
  testing::TempDir dir;
  const std::string name = "loop-e2e-" + std::to_string(getpid());
  const auto stored = std::filesystem::path(testing::built::kSourceDir) / "results" / "baselines" / name;
  // The store is in the source tree: removed however the test ends.
  struct Removed {
    std::filesystem::path dir;
    ~Removed() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } removed{stored};
  ASSERT_EQ(run_cli(brief_cell_run(dir.path() / "saved", "system", {"--save-baseline", name})).exit_code, 0);
  const std::string own = timed_loop_in(read_json(stored / "results.json"), "system");

  // Two files: nothing is judged.
  ASSERT_EQ(run_cli(brief_cell_run(dir.path() / "cand", "system")).exit_code, 0);
  give_other_loop_in(dir.path() / "cand" / "results.json", "system");
  const CliResult files = run_cli({"gate", "--baseline", name, "--candidate", (dir.path() / "cand").string(), "--out",
                                   (dir.path() / "g1").string()});
  EXPECT_EQ(files.exit_code, 2) << files.err;
  EXPECT_NE(files.err.find("backend 'system'"), std::string::npos) << files.err;
  EXPECT_NE(files.err.find(std::string("timed loop ") + kOtherLoop), std::string::npos) << files.err;
  EXPECT_NE(files.err.find("timed loop " + own), std::string::npos) << files.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "g1" / "gate.json"));

  // The stored worker measured again beside this build's: its bytes name another loop.
  const auto stored_worker = stored / "workers" / "abench-worker-system";
  ASSERT_TRUE(copy_with_other_loop(stored_worker, own, stored_worker));
  const CliResult side = run_cli({"gate", "--baseline", name, "--out", (dir.path() / "g2").string()});
  EXPECT_EQ(side.exit_code, 2) << side.err;
  EXPECT_NE(side.err.find("stored baseline's workers"), std::string::npos) << side.err;
  EXPECT_NE(side.err.find(std::string("timed loop ") + kOtherLoop), std::string::npos) << side.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "g2" / "results.json")) << "nothing was measured";

  // Its stored figures, judged against this build measured now.
  give_other_loop_in(stored / "results.json", "system");
  const CliResult figures =
      run_cli({"gate", "--baseline", name, "--stored-figures", "--out", (dir.path() / "g3").string()});
  EXPECT_EQ(figures.exit_code, 2) << figures.err;
  EXPECT_NE(figures.err.find("this build"), std::string::npos) << figures.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "g3" / "results.json")) << "nothing was measured";
}

// A compare of two workers whose loops differ measures them and says so: part of the change
// may be abench's.
TEST(TimedLoopEndToEnd, ACompareOfTwoLoopsSaysSo) {
  testing::TempDir dir;
  ASSERT_EQ(run_cli(brief_cell_run(dir.path() / "a", "system")).exit_code, 0);
  const std::string own = timed_loop_in(read_json(dir.path() / "a" / "results.json"), "system");
  const auto other = dir.path() / "abench-worker-system";
  ASSERT_TRUE(copy_with_other_loop(testing::built::kWorkerSystem, own, other));
  const auto out = dir.path() / "c";
  const CliResult r = run_cli({"compare",
                               "--baseline",
                               "exe=" + other.string() + ",label=old",
                               "--candidate",
                               "backend=system,label=new",
                               "--matrix",
                               "quick",
                               "--workload",
                               "pair",
                               "--size",
                               "64",
                               "--align",
                               "16",
                               "--live",
                               "1",
                               "--samples",
                               "3",
                               "--min-batch-ms",
                               "0.2",
                               "--no-counts",
                               "--no-report",
                               "--out",
                               out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto compared = read_json(out / "compare.json");
  EXPECT_EQ(compared["baseline_timed_loops"], nlohmann::json::array({kOtherLoop}));
  EXPECT_EQ(compared["candidate_timed_loops"], nlohmann::json::array({own}));
  const std::string md = read_file(out / "compare.md");
  EXPECT_NE(md.find("ran different timed loops"), std::string::npos) << md;
  EXPECT_NE(md.find(own), std::string::npos) << md;
  // Read back, the warning is the file's: the report shows it.
  const CliResult report = run_cli({"report", out.string()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_NE(read_file(out / "report.html").find("ran different timed loops"), std::string::npos);
}

// Two runs of one build and a third whose file says another loop measured it: the history
// keeps the third apart, as a boundary of abench's that says its loop changed.
TEST(TimedLoopEndToEnd, TheHistoryKeepsAnotherLoopsFiguresApartAndSaysSo) {
  testing::TempDir dir;
  const std::string store = (dir.path() / "history.db").string();
  for (const char* commit : {"c1", "c2", "c3"}) {
    const auto out = dir.path() / commit;
    ASSERT_EQ(run_cli(brief_cell_run(out, "system")).exit_code, 0);
    if (std::string(commit) == "c3") give_other_loop_in(out / "results.json", "system");
    const CliResult added = run_cli({"history", "add", out.string(), "--history", store, "--commit", commit});
    ASSERT_EQ(added.exit_code, 0) << added.err;
  }
  const CliResult changes = run_cli({"history", "changes", "--history", store, "--out", (dir.path() / "ch").string()});
  ASSERT_TRUE(changes.exit_code == 0 || changes.exit_code == 1) << changes.err;
  const auto rows = testing::read_csv(dir.path() / "ch" / "changes.csv");
  std::size_t boundaries = 0;
  for (const auto& row : rows) {
    if (row.at("kind") != "abench") continue;
    ++boundaries;
    EXPECT_EQ(row.at("commit"), "c3");
    EXPECT_EQ(row.at("timed_loop_after"), kOtherLoop);
    EXPECT_NE(row.at("timed_loop_before"), kOtherLoop);
    EXPECT_EQ(row.at("timed_loop_before").size(), 16u);
  }
  EXPECT_EQ(boundaries, 1u);
  EXPECT_NE(read_file(dir.path() / "ch" / "changes.md").find("abench (timed loop changed)"), std::string::npos);
}

}  // namespace
}  // namespace abench
