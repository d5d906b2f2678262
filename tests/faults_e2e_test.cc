// End to end: a subject that crashes, hangs, returns NULL or misaligned blocks, or prints,
// at one size, through the real CLI and workers; and SIGINT, resume and SIGKILL of abench.
// What must hold: the faulty cell fails alone with the evidence, every other cell is
// measured, the files stay valid, nothing is left running.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "src/run/process_launcher.h"
#include "src/run/run_origin.h"
#include "tests/background_cli.h"
#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

extern char** environ;

namespace abench {
namespace {

using testing::Background;
using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;

// By default one process a side a round running every cell (--interleave process), so a
// fault in one cell has cells after it in the same worker; at --interleave batch the faulty
// process has a partner waiting for it.
std::vector<std::string> fault_args(const std::string& fault, const std::filesystem::path& out,
                                    const std::string& interleave = "process") {
  return {"compare",
          "--baseline",
          std::string("plugin=") + testing::built::kMallocSubject + ",label=plain",
          "--candidate",
          std::string("plugin=") + testing::built::kFaultSubject + ",label=faulty,env=ABENCH_TEST_FAULT=" + fault,
          "--matrix",
          "quick",
          "--backend",
          "system",
          "--policy",
          "exact",
          "--workload",
          "allocate",
          "--size",
          "64,256,4096",
          "--align",
          "64",
          "--live",
          "1",
          "--samples",
          "3",
          "--min-batch-ms",
          "0.2",
          "--processes",
          "2",
          "--interleave",
          interleave,
          "--order",
          "matrix",
          "--no-counts",
          "--out",
          out.string()};
}

struct FaultCase {
  const char* kind;
  int exit_code;
  const char* evidence;  // in the faulty cell's error ("" when nothing may fail)
};

void PrintTo(const FaultCase& c, std::ostream* os) { *os << c.kind; }

class Faults : public ::testing::TestWithParam<FaultCase> {};

void expect_the_faulty_cell_fails_alone(const FaultCase& c, const std::string& interleave) {
  testing::TempDir dir;
  const auto out = dir.path() / c.kind;
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = run_cli(fault_args(std::string(c.kind) + ":256", out, interleave));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, c.exit_code) << r.out << r.err;
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));  // valid, even after bad bytes
  EXPECT_TRUE(json["complete"].get<bool>());
  for (const auto& cell : json["cells"]) {
    const bool faulty = cell["variant"] == "faulty" && cell["size"] == 256;
    if (faulty && *c.evidence != '\0') {
      EXPECT_EQ(cell["status"], "failed") << cell.dump();
      ASSERT_FALSE(cell["errors"].empty()) << cell.dump();
      const std::string error = cell["errors"][0].get<std::string>();
      EXPECT_NE(error.find(c.evidence), std::string::npos) << error;
    } else {
      EXPECT_EQ(cell["status"], "ok") << cell.dump();
      EXPECT_EQ(cell["processes"].size(), 2u) << cell.dump();
    }
  }
  // compare.md/.csv name the failed cell and judge the rest.
  const auto rows = read_csv(out / "compare.csv");
  ASSERT_EQ(rows.size(), 3u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("verdict") == "failed", row.at("size") == "256" && *c.evidence != '\0') << row.at("verdict");
  }
  // A hang is found in seconds from the cell's expected time, not after a minute.
  if (std::string(c.kind) == "hang") {
    EXPECT_LT(seconds, 45);
  }
}

TEST_P(Faults, TheFaultyCellFailsAloneAndEveryOtherCellIsMeasured) {
  expect_the_faulty_cell_fails_alone(GetParam(), "process");
}

// A paced pair: the faulty side's partner is let go and measures its cell alone.
class PacedFaults : public ::testing::TestWithParam<FaultCase> {};

TEST_P(PacedFaults, TheFaultyCellFailsAloneAndItsPartnerIsMeasured) {
  expect_the_faulty_cell_fails_alone(GetParam(), "batch");
}

INSTANTIATE_TEST_SUITE_P(Subject, PacedFaults,
                         ::testing::Values(FaultCase{"segv", 3, "killed by signal 11 (SEGV) while running this cell"},
                                           FaultCase{"hang", 3, "hung: no report within"}),
                         [](const auto& info) { return std::string(info.param.kind); });

INSTANTIATE_TEST_SUITE_P(Subject, Faults,
                         ::testing::Values(FaultCase{"segv", 3, "killed by signal 11 (SEGV) while running this cell"},
                                           FaultCase{"abort", 3, "killed by signal 6 (ABRT) while running this cell"},
                                           FaultCase{"hang", 3, "hung: no report within"},
                                           FaultCase{"null", 3, "returned nullptr"},
                                           FaultCase{"misaligned", 3, "not aligned to 64"},
                                           FaultCase{"nonutf8", 3, "subject says \\xff\\xfe\\xc3 before it crashes"},
                                           FaultCase{"chatty", 0, ""}),
                         [](const auto& info) { return std::string(info.param.kind); });

// A paced side that has sent every report and then never finishes exiting is killed on its
// allowance, and its partner, whose last sample waits for that exit, then takes it. At two
// samples the order is 0 1 1 0: the faulty side (1) ends first. Before, a side past its last
// sample counted as waiting for a word, its allowance and its partner's restarted for ever,
// and abench hung.
TEST(FaultsEndToEnd, APacedSideThatHangsOnItsWayOutIsKilledAndItsPartnerFinishes) {
  testing::TempDir dir;
  const auto out = dir.path() / "exithang";
  std::vector<std::string> args = fault_args("exithang:256", out, "batch");
  *(std::find(args.begin(), args.end(), "--samples") + 1) = "2";
  const auto start = std::chrono::steady_clock::now();
  const CliResult r = run_cli(args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_LT(seconds, 60);
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_TRUE(json["complete"].get<bool>());
  for (const auto& cell : json["cells"]) {  // every report arrived before the hang
    EXPECT_EQ(cell["status"], "ok") << cell.dump();
    EXPECT_EQ(cell["processes"].size(), 2u) << cell.dump();
  }
  int killed = 0;
  for (const auto& w : json["workers"])
    if (w.dump().find("hung: no report within") != std::string::npos) ++killed;
  EXPECT_EQ(killed, 2) << "one faulty process a round";
}

// A worker whose start hangs (here the first timed worker to load the plugin; under qemu-user a spawn that
// deadlocks before its exec) is killed on its allowance and its cell runs in a fresh worker:
// one hung start costs no cell. Paced, so its partner runs that round alone.
TEST(FaultsEndToEnd, AWorkerWhoseStartHangsIsStartedOnceMoreAndNoCellIsLost) {
  testing::TempDir dir;
  const auto out = dir.path() / "starthang";
  std::vector<std::string> args = fault_args("none:0", out, "batch");
  args.insert(args.end(), {"--worker-timeout", "3"});
  const CliResult r = run_cli(args, {{"ABENCH_TEST_HANG_ONCE", (dir.path() / "first-start").string()}});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  for (const auto& cell : json["cells"]) {
    EXPECT_EQ(cell["status"], "ok") << cell.dump();
    EXPECT_EQ(cell["processes"].size(), 2u) << cell.dump();
  }
  int hung = 0;
  for (const auto& w : json["workers"])
    if (w.value("outcome", "") == "hung: no report within 3 s, killed") ++hung;
  EXPECT_EQ(hung, 1);
}

TEST(FaultsEndToEnd, WhatAPluginPrintsIsKeptAsItsOutputAndCannotForgeTheProtocol) {
  testing::TempDir dir;
  const auto out = dir.path() / "chatty";
  const CliResult r = run_cli(fault_args("chatty:256", out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  int with_output = 0;
  for (const auto& w : json["workers"]) {
    EXPECT_FALSE(w.contains("error")) << w.dump();  // the forged line was never read as protocol
    if (w.value("stdout_tail", "").find("chatter without a newline{\"type\":\"done\"}") != std::string::npos)
      ++with_output;
  }
  EXPECT_EQ(with_output, 2);  // both faulty processes, their output kept
}

// abench started in the background with its output in files, so a test can signal it.

// Waits until results.json shows at least `processes` finished measurements.
bool wait_for_measurements(const std::filesystem::path& results, std::size_t processes, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      std::size_t seen = 0;
      const auto json = nlohmann::json::parse(read_file(results));
      for (const auto& cell : json.at("cells")) seen += cell.at("processes").size();
      if (seen >= processes) return true;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 2));
    char state = 0;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) children.push_back(std::stoi(name));
  }
  return children;
}

bool gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close != std::string::npos && text.size() > close + 2 && text[close + 2] == 'Z';
}

std::vector<std::string> interruptible_run(const std::filesystem::path& out) {
  return {"run",    "--matrix",       "quick",  "--backend", "system",    "--workload", "allocate,append",
          "--size", "64,4096",        "--live", "1,64",      "--samples", "3",          "--processes",
          "3",      "--min-batch-ms", "20",     "--seed",    "7",         "--out",      out.string()};
}

TEST(InterruptEndToEnd, SigintKeepsWhatIsFinishedAndResumeEndsLikeAnUninterruptedRun) {
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  Background abench(interruptible_run(out), dir.path());
  ASSERT_TRUE(wait_for_measurements(out / "results.json", 3, 60)) << read_file(abench.err);
  kill(abench.pid, SIGINT);
  EXPECT_EQ(abench.wait_exit(), 130);
  const std::string err = read_file(abench.err);
  EXPECT_NE(err.find("resume with: abench run --resume " + out.string()), std::string::npos) << err;

  const auto interrupted = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_FALSE(interrupted["complete"].get<bool>());
  EXPECT_EQ(interrupted["interrupted_by"], "INT");
  std::size_t kept = 0;
  for (const auto& cell : interrupted["cells"]) {
    EXPECT_NE(cell["status"], "failed") << cell.dump();  // stopped, not failed
    kept += cell["processes"].size();
    if (!cell["processes"].empty() && cell["processes"].size() < 3) {
      EXPECT_EQ(cell["status"], "partial");
    }
  }
  EXPECT_GE(kept, 3u);
  for (const auto& w : interrupted["workers"]) {
    if (w.contains("pid")) {
      EXPECT_TRUE(gone(w["pid"].get<pid_t>())) << w.dump();
    }
  }

  // Resume: the same plan and seed; what was kept stays, the rest is measured.
  const CliResult resumed = run_cli({"run", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const auto done = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_TRUE(done["complete"].get<bool>());
  EXPECT_TRUE(done["interrupted_by"].is_null());
  EXPECT_EQ(done["protocol"]["seed"], 7);
  EXPECT_EQ(done["run_id"], interrupted["run_id"]);
  ASSERT_EQ(done["cells"].size(), interrupted["cells"].size());
  for (std::size_t i = 0; i < done["cells"].size(); ++i) {
    const auto& cell = done["cells"][i];
    EXPECT_EQ(cell["status"], "ok") << cell.dump();
    EXPECT_EQ(cell["processes"].size(), 3u);
    EXPECT_EQ(cell["finished_rounds"], (nlohmann::json{1, 2, 3}));
    // Counted beside the timed rounds, some perhaps only after the resume.
    EXPECT_TRUE(cell["counts"].is_object()) << cell.dump();
    // Every measurement kept from the first part is still there.
    for (const auto& p : interrupted["cells"][i]["processes"]) {
      EXPECT_NE(std::find(cell["processes"].begin(), cell["processes"].end(), p), cell["processes"].end());
    }
  }
  // The same files as an uninterrupted run of the same command.
  const auto whole = dir.path() / "whole";
  ASSERT_EQ(run_cli(interruptible_run(whole)).exit_code, 0);
  auto names = [](const std::filesystem::path& d) {
    std::set<std::string> n;
    for (const auto& e : std::filesystem::directory_iterator(d)) n.insert(e.path().filename());
    return n;
  };
  EXPECT_EQ(names(out), names(whole));
  const auto uninterrupted = nlohmann::json::parse(read_file(whole / "results.json"));
  for (std::size_t i = 0; i < done["cells"].size(); ++i)
    EXPECT_EQ(done["cells"][i]["variant"], uninterrupted["cells"][i]["variant"]);

  // Nothing to resume now; a resumed run takes no other options.
  EXPECT_EQ(run_cli({"run", "--resume", out.string()}).exit_code, 2);
  EXPECT_EQ(run_cli({"run", "--resume", out.string(), "--samples", "5"}).exit_code, 2);
}

TEST(InterruptEndToEnd, AnInterruptedRunOfAPreloadedLibraryResumesWithIt) {
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  Background abench({"run", "--variant", std::string("preload=") + testing::built::kTinyV1, "--matrix", "quick",
                     "--workload", "allocate,append", "--size", "64,4096", "--live", "1,64", "--samples", "3",
                     "--processes", "3", "--min-batch-ms", "20", "--out", out.string()},
                    dir.path());
  ASSERT_TRUE(wait_for_measurements(out / "results.json", 2, 60)) << read_file(abench.err);
  kill(abench.pid, SIGINT);
  EXPECT_EQ(abench.wait_exit(), 130);
  const CliResult resumed = run_cli({"run", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  const auto done = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_TRUE(done["complete"].get<bool>());
  ASSERT_EQ(done["variants"].size(), 1u);
  EXPECT_EQ(done["variants"][0]["preload"], testing::built::kTinyV1);  // the resumed half measured the same library
  for (const auto& cell : done["cells"]) EXPECT_EQ(cell["processes"].size(), 3u) << cell.dump();
}

TEST(InterruptEndToEnd, AnInterruptedCompareWritesItsReportForWhatIsCompleteAndResumes) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  // The candidate names an environment setting: code of a kind a resume runs only when abench
  // recorded starting that command there (src/run/run_origin.h).
  Background abench({"compare",
                     "--baseline",
                     "backend=system",
                     "--candidate",
                     "backend=system,label=again,env=MALLOC_ARENA_MAX=2",
                     "--matrix",
                     "quick",
                     "--workload",
                     "allocate,append",
                     "--size",
                     "64,4096",
                     "--live",
                     "1",
                     "--samples",
                     "3",
                     "--min-batch-ms",
                     "20",
                     "--no-counts",
                     "--out",
                     out.string()},
                    dir.path());
  ASSERT_TRUE(wait_for_measurements(out / "results.json", 4, 60)) << read_file(abench.err);
  kill(abench.pid, SIGTERM);
  EXPECT_EQ(abench.wait_exit(), 143);
  EXPECT_TRUE(std::filesystem::exists(out / "compare.md"));
  EXPECT_TRUE(std::filesystem::exists(out / "compare.json"));
  const auto run_id = nlohmann::json::parse(read_file(out / "results.json"))["run_id"].get<std::string>();
  const auto record = *run_records_directory() / (run_id + ".json");
  EXPECT_TRUE(std::filesystem::exists(record));

  // The same directory copied elsewhere is not the one abench wrote: its code is not run.
  const auto copy = dir.path() / "copy";
  std::filesystem::copy(out, copy, std::filesystem::copy_options::recursive);
  const CliResult refused = run_cli({"compare", "--resume", copy.string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("env=MALLOC_ARENA_MAX=2"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("was started by abench in " + std::filesystem::weakly_canonical(out).string()),
            std::string::npos)
      << refused.err;

  const CliResult resumed = run_cli({"compare", "--resume", out.string()});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_NE(resumed.err.find("(the command abench started there on this machine)"), std::string::npos) << resumed.err;
  EXPECT_FALSE(std::filesystem::exists(record));  // finished: nothing left to resume
  const auto rows = read_csv(out / "compare.csv");
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& row : rows) EXPECT_NE(row.at("verdict"), "failed");
}

TEST(InterruptEndToEnd, ASigkilledAbenchLeavesNoWorkerBehind) {
  testing::TempDir dir;
  const auto out = dir.path() / "killed";
  // The faulty worker hangs in its first cell (matrix order): it would wait forever if it
  // outlived abench, where a worker still measuring would end on its own.
  Background abench(fault_args("hang:64", out), dir.path());
  ASSERT_TRUE(wait_for_measurements(out / "results.json", 3, 60)) << read_file(abench.err);  // the plain side's
  // The hanging worker may not have been started yet (under qemu a worker takes a while to
  // start): wait for abench to have a child.
  std::vector<pid_t> workers;
  for (int tries = 0; tries < 300 && workers.empty(); ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    workers = children_of(abench.pid);
  }
  ASSERT_FALSE(workers.empty()) << read_file(abench.err);
  kill(abench.pid, SIGKILL);
  abench.wait_exit();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  for (pid_t w : workers) EXPECT_TRUE(gone(w)) << "worker " << w << " outlived abench";
}

// A full disk (here: a file size limit, which fails writes the same way) is the
// environment failing, exit 4 with the path and the reason; never "a bug" (70), and never a
// half-written results file.
TEST(EnvironmentEndToEnd, AWriteThatFailsIsAnEnvironmentErrorAndLeavesNoHalfFile) {
  testing::TempDir dir;
  const auto out = dir.path() / "full";
  const std::string command = "ulimit -f 4; exec " + std::string(testing::built::kAbench) +
                              " run --matrix quick --backend system --workload allocate --size 64 --live 1 "
                              "--samples 3 --processes 1 --min-batch-ms 0.2 --out " +
                              out.string();
  ProcessLauncher launcher;
  LaunchRequest request{"/bin/sh", {"-c", command}, {}, "", 120};
  const LaunchOutcome o = launcher.run(request, [](std::string_view) { return 0.0; });
  EXPECT_EQ(o.exit_code, 4) << o.stdout_tail << o.stderr_tail;
  EXPECT_NE(o.stderr_tail.find("the environment failed: cannot write"), std::string::npos) << o.stderr_tail;
  EXPECT_NE(o.stderr_tail.find("File too large"), std::string::npos) << o.stderr_tail;
  EXPECT_EQ(o.stderr_tail.find("internal error"), std::string::npos) << o.stderr_tail;
  for (const auto& e : std::filesystem::directory_iterator(out)) {
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    if (e.path().filename() == "results.json") {
      EXPECT_NO_THROW(nlohmann::json::parse(read_file(e.path())));
    }
  }
}

}  // namespace
}  // namespace abench
