// abench bisect through the real CLI on a real git repository made here: a tiny malloc (one
// C file, tests/allocators/tiny.c) built by gcc into a preloaded library at every commit, one
// commit making its malloc do a few percent more work. Counted (--measure instructions): the
// steps' verdicts repeat exactly, so the number of compares is the rule's, not the machine's.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "src/results/results_reader.h"
#include "src/store/history_store.h"
#include "src/util/subprocess.h"
#include "tests/background_cli.h"
#include "tests/built_paths.h"
#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::run_cli;

// A git repository of tiny.c in a temporary directory, one commit at a time.
class TinyRepository {
 public:
  TinyRepository() : root_(dir_.path() / "tiny") {
    std::filesystem::create_directories(root_);
    std::filesystem::copy_file(std::filesystem::path(testing::built::kSourceDir) / "tests/allocators/tiny.c",
                               root_ / "tiny.c");
    git({"init", "--quiet"});
    git({"config", "user.email", "bisect@abench.test"});
    git({"config", "user.name", "abench"});
  }
  // Commits config.h as given and NOTES changed (never the same), returning the commit's hash.
  std::string commit(const std::string& config, const std::string& subject) {
    write("config.h", config);
    write("NOTES", fmt::format("{} ({})\n", subject, ++commits_));
    git({"add", "-A"});
    git({"commit", "--quiet", "-m", subject});
    return git({"rev-parse", "HEAD"});
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(root_ / name) << text; }
  std::string git(std::vector<std::string> args) {
    args.insert(args.begin(), {"git", "-C", root_.string()});
    const Finished f = run_program(args, dir_.path(), dir_.path() / "git.txt");
    EXPECT_EQ(f.exit_code, 0) << f.output;
    std::string out = f.output;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
  std::filesystem::path root() const { return root_; }
  std::filesystem::path temp() const { return dir_.path(); }

 private:
  testing::TempDir dir_;
  std::filesystem::path root_;
  int commits_ = 0;
};

constexpr const char* kQuick = "#define TINY_EXTRA_WORK 0\n";
constexpr const char* kMoreWork = "#define TINY_EXTRA_WORK 2\n";
constexpr const char* kBroken = "#error this commit does not build\n";

// 32 commits: c00 (good) .. c31 (bad), c19 making malloc do more work; `broken` (if any) does
// not build and the commit after it mends it.
std::vector<std::string> history(TinyRepository& repo, int broken = -1) {
  std::vector<std::string> commits;
  for (int c = 0; c < 32; ++c)
    commits.push_back(repo.commit(c == broken ? kBroken
                                  : c >= 19   ? kMoreWork
                                              : kQuick,
                                  c == 19 ? "malloc spins a little" : fmt::format("notes {}", c)));
  return commits;
}

// The bisect of tiny's pair cell between good and bad, counted; `where` is --out or --resume.
std::vector<std::string> bisect_args(TinyRepository& repo, const std::string& good, const std::string& bad,
                                     const std::string& where, const std::string& dir,
                                     const std::string& measure = "instructions") {
  return {"bisect",
          "--repo",
          repo.root().string(),
          "--good",
          good,
          "--bad",
          bad,
          "--build",
          "cc -O2 -shared -fPIC -fno-builtin -include {src}/config.h {src}/tiny.c -o {out}/libtiny.so",
          "--spec",
          "backend=system,preload={out}/libtiny.so",
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
          "--measure",
          measure,
          "--processes",
          "1",
          "--build-cache",
          (repo.temp() / "builds").string(),
          "--no-report",
          where,
          (repo.temp() / dir).string()};
}

testing::CliResult bisect(TinyRepository& repo, const std::string& good, const std::string& bad, const std::string& out,
                          const std::string& measure = "instructions") {
  return run_cli(bisect_args(repo, good, bad, "--out", out, measure));
}

// The 32-commit bisects run in the plain build: sanitized, abench is several times slower, and
// the flow's code is exercised there by the shorter bisects below.
#define ABENCH_SKIP_WHEN_SANITIZED() \
  if (testing::built::kSanitized) GTEST_SKIP() << "the plain build runs this 32-commit bisect (see above)"

// 32 commits, c19 making malloc do more work and c15 (the first a search of 32 tests) not
// building: c19 is named in at most 7 compares, c15 skipped and named; the user's checkout is
// untouched and no worktree of abench's is left registered.
TEST(BisectEndToEnd, TheCommitThatMakesMallocDoMoreWorkIsNamedInAtMostSevenCompares) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  ABENCH_SKIP_WHEN_SANITIZED();
  TinyRepository repo;
  const auto commits = history(repo, 15);
  const auto r = bisect(repo, commits.front(), commits.back(), "found");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto json = testing::read_json(repo.temp() / "found" / "bisect.json");
  EXPECT_EQ(json["first_bad"], commits[19]) << json.dump(2);
  EXPECT_EQ(json["last_good"], commits[18]);
  EXPECT_LE(json["compares"].get<int>(), 7);
  ASSERT_EQ(json["skipped"].size(), 1u) << json.dump(2);
  EXPECT_EQ(json["skipped"][0]["commit"], commits[15]);
  EXPECT_NE(json["skipped"][0]["why"].get<std::string>().find("this commit does not build"), std::string::npos);
  const std::string md = testing::read_file(repo.temp() / "found" / "bisect.md");
  EXPECT_NE(md.find("first bad commit " + commits[19].substr(0, 12)), std::string::npos) << md;
  EXPECT_NE(md.find("malloc spins a little"), std::string::npos) << md;
  // Every step's compare is kept, the first the ends'.
  for (const auto& step : json["steps"])
    EXPECT_TRUE(step["dir"].get<std::string>().empty() ||
                std::filesystem::exists(std::filesystem::path(step["dir"].get<std::string>()) / "compare.json"))
        << step.dump();
  EXPECT_GT(json["steps"][0]["cells"][0]["change"]["change"].get<double>(), 0.02) << "a few percent more work";
  EXPECT_EQ(repo.git({"status", "--porcelain"}), "") << "the user's checkout untouched";
  EXPECT_EQ(repo.git({"worktree", "list", "--porcelain"}).find("builds"), std::string::npos)
      << "no worktree of abench's left registered";
}

TEST(BisectEndToEnd, BetweenTwoCommitsOfTheSameCodeThereIsNoChange) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  TinyRepository repo;
  const auto commits = history(repo);
  const auto r = bisect(repo, commits[2], commits[9], "same");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto json = testing::read_json(repo.temp() / "same" / "bisect.json");
  EXPECT_FALSE(json["changed"].get<bool>());
  EXPECT_EQ(json["ends"], "same");
  EXPECT_TRUE(json["first_bad"].is_null());
  EXPECT_EQ(json["compares"], 1);
  EXPECT_NE(testing::read_file(repo.temp() / "same" / "bisect.md").find("no change between"), std::string::npos);
}

// Timed: refused before anything is measured, so under emulation too (where counts are refused first).
TEST(BisectEndToEnd, BadInputIsRefusedWithItsReason) {
  TinyRepository repo;
  const std::string good = repo.commit(kQuick, "one"), bad = repo.commit(kQuick, "two");
  auto refused = [&](const testing::CliResult& r, const std::string& reason) {
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
  };
  refused(bisect(repo, "no-such-rev", bad, "a", "time"), "is not a commit of");
  refused(bisect(repo, bad, good, "b", "time"), "is not an ancestor of");
  refused(bisect(repo, "--all", bad, "c", "time"), "is not a revision");
  const auto broken_good = repo.commit(kBroken, "broken"), broken_bad = repo.commit(kBroken, "still broken");
  refused(bisect(repo, broken_good, broken_bad, "d", "time"), "the command fails at both ends");
  repo.write("NOTES", "an edit not committed\n");
  refused(bisect(repo, good, bad, "e", "time"), "has uncommitted changes");
}

// --from-history: a store whose tiny cell steps up between two commits of the repository
// (the runs recorded as one real run of tiny, its figures raised 7% from c06 on), and bisect
// takes the two commits and the cell from that change point.
TEST(BisectEndToEnd, AChangePointOfAHistoryStoreIsBisectedToItsCommit) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  TinyRepository repo;
  std::vector<std::string> commits;
  for (int c = 0; c < 12; ++c)
    commits.push_back(repo.commit(c >= 6 ? kMoreWork : kQuick, c == 6 ? "malloc spins a little" : "notes"));
  const auto ran = run_cli({"run",
                            "--matrix",
                            "quick",
                            "--variant",
                            "backend=system,label=tiny,preload=" + std::string(testing::built::kTinyV1),
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
                            (repo.temp() / "run").string()});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  RunResults run = load_results((repo.temp() / "run" / "results.json").string());
  const std::string store = (repo.temp() / "history.db").string();
  HistoryStore history(store);
  const double figure = *run.cells.at(0).summary.ns_per_op;
  for (int c = 0; c < 12; ++c) {
    run.run_id = fmt::format("run-{}", c);
    const double level = c >= 6 ? 1.07 : 1.0;
    for (CellRecord& cell : run.cells) {
      cell.summary.ns_per_op = figure * level;
      for (ProcessMeasurement& p : cell.processes) p.median_ns_per_op = figure * level;
    }
    ASSERT_TRUE(history.record(run, {commits[c], "main", "test", fmt::format("2026-12-01T00:00:{:02d}.000000Z", c)}));
  }
  const auto r = run_cli({"bisect",
                          "--repo",
                          repo.root().string(),
                          "--from-history",
                          store,
                          "--change",
                          "1",
                          "--build",
                          "cc -O2 -shared -fPIC -fno-builtin -include {src}/config.h {src}/tiny.c -o {out}/libtiny.so",
                          "--spec",
                          "backend=system,preload={out}/libtiny.so",
                          "--matrix",
                          "quick",
                          "--processes",
                          "1",
                          "--build-cache",
                          (repo.temp() / "builds").string(),
                          "--no-report",
                          "--out",
                          (repo.temp() / "bisect").string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("bisect: change 1 of"), std::string::npos) << r.out;
  const auto json = testing::read_json(repo.temp() / "bisect" / "bisect.json");
  EXPECT_EQ(json["good"], commits[5]);
  EXPECT_EQ(json["first_bad"], commits[6]) << json.dump(2);
  EXPECT_EQ(json["steps"][0]["cells"].size(), 1u) << "the change point's cell alone";
  EXPECT_EQ(json["steps"][0]["cells"][0]["cell"], "exact/pair/64/1:16/8");

  const auto missing = run_cli({"bisect", "--repo", repo.root().string(), "--from-history", store, "--change", "2",
                                "--build", "true {out}", "--spec", "preload={out}/x.so"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("allowed: 1 to 1"), std::string::npos) << missing.err;
}

// Ctrl-C: a bisect stopped by SIGINT after its third step keeps its finished steps (exit
// 130, bisect.json not complete) and the same command with --resume goes on from them: they
// are not measured again, and the answer is the uninterrupted one. Another command against
// that directory is refused.
TEST(BisectEndToEnd, AnInterruptedBisectGoesOnFromItsFinishedSteps) {
  ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker (--measure instructions is refused)");
  ABENCH_SKIP_WHEN_SANITIZED();
  TinyRepository repo;
  const auto commits = history(repo);
  const auto out = repo.temp() / "stopped";
  testing::Background abench(bisect_args(repo, commits.front(), commits.back(), "--out", "stopped"), repo.temp());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t steps = 0;
  while (steps < 3 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto json = nlohmann::json::parse(testing::read_file(out / "bisect.json"), nullptr, false);
    if (json.is_object() && json.contains("steps")) steps = json["steps"].size();
  }
  ASSERT_GE(steps, 3u) << testing::read_file(abench.err);
  kill(abench.pid, SIGINT);
  const int code = abench.wait_exit();
  const auto stopped = testing::read_json(out / "bisect.json");
  if (code == 0) GTEST_SKIP() << "the bisect ended before the signal reached it";
  EXPECT_EQ(code, 130) << testing::read_file(abench.err);
  EXPECT_NE(testing::read_file(abench.err).find("--resume " + out.string()), std::string::npos)
      << testing::read_file(abench.err);
  EXPECT_FALSE(stopped["complete"].get<bool>());
  const std::size_t kept = stopped["steps"].size();
  EXPECT_GE(kept, 3u);
  const auto second_step = std::filesystem::path(stopped["steps"][1]["dir"].get<std::string>()) / "compare.json";
  const auto measured_at = std::filesystem::last_write_time(second_step);

  auto args = bisect_args(repo, commits.front(), commits.back(), "--resume", "stopped");
  const auto resumed = run_cli(args);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.out.find("kept from the interrupted bisect"), std::string::npos) << resumed.out;
  const auto json = testing::read_json(out / "bisect.json");
  EXPECT_EQ(json["first_bad"], commits[19]) << json.dump(2);
  EXPECT_TRUE(json["complete"].get<bool>());
  EXPECT_LE(json["compares"].get<int>(), 7);
  EXPECT_EQ(std::filesystem::last_write_time(second_step), measured_at) << "a finished step is not measured again";

  *(std::find(args.begin(), args.end(), "--spec") + 1) = "backend=system,preload={out}/libtiny.so,label=other";
  const auto other = run_cli(args);
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_NE(other.err.find("a bisect with another spec"), std::string::npos) << other.err;
}

}  // namespace
}  // namespace abench
