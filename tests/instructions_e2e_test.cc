// --measure instructions end to end: counts under callgrind repeat exactly, cells the mode
// cannot see are refused (not failed). --measure perf reads hardware counters where they
// exist and says "not supported" elsewhere rather than making a number up; perf-sw reads
// the software counters through the same code.
#include <gtest/gtest.h>

#include <fstream>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "harness/perf_counters.h"
#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;

bool have_valgrind() { return access("/usr/bin/valgrind", X_OK) == 0; }

// valgrind translates the machine code it runs; under qemu-user there is none of this
// architecture to translate.
constexpr const char* kNoCallgrindUnderEmulation = "callgrind cannot run an emulated worker";

std::vector<std::string> instruction_run(const std::filesystem::path& out) {
  return {"run",    "--matrix",    "quick",   "--measure", "instructions", "--workload", "allocate,append",
          "--size", "64,65536",    "--align", "256",       "--live",       "1",          "--processes",
          "1",      "--no-counts", "--out",   out.string()};
}

// Where the kernel lets this process choose (root: ns_last_pid), the next processes get pids
// of another length than the last ones had.
void move_next_pids_far_away() {
  const char* path = "/proc/sys/kernel/ns_last_pid";
  long last = 0;
  if (std::ifstream in(path); !(in >> last)) return;
  std::ofstream out(path);
  out << (last < 10000 ? 20000 : 1000);
}

TEST(InstructionsEndToEnd, CountsAreIdenticalAcrossRunsAndTheGatePassesThem) {
  ABENCH_SKIP_UNDER_EMULATION(kNoCallgrindUnderEmulation);
  if (!have_valgrind()) GTEST_SKIP() << "valgrind is not installed (scripts/setup.sh installs it)";
  testing::TempDir dir;
  ASSERT_EQ(run_cli(instruction_run(dir.path() / "a")).exit_code, 0);
  // The second run's workers get pids of another length where this may choose them (root):
  // the counts must not depend on the pid (the worker reads callgrind's dump, named by it).
  move_next_pids_far_away();
  const CliResult second = run_cli(instruction_run(dir.path() / "b"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto a = read_csv(dir.path() / "a" / "results.csv"), b = read_csv(dir.path() / "b" / "results.csv");
  ASSERT_EQ(a.size(), 12u);
  int measured = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].at("backend") == "mimalloc") {
      // mimalloc seeds its heap's keys and random choices from the OS at every start: its
      // counts vary between runs by up to about 0.1%, well inside the gate's 0.5% for counts.
      if (a[i].at("status") == "ok") {
        EXPECT_NEAR(std::stod(a[i].at("instructions_per_op")), std::stod(b[i].at("instructions_per_op")),
                    0.002 * std::stod(a[i].at("instructions_per_op")))
            << a[i].at("workload");
      }
    } else {
      EXPECT_EQ(a[i].at("instructions_per_op"), b[i].at("instructions_per_op"))
          << a[i].at("backend") << " " << a[i].at("workload");
    }
    if (!(a[i].at("size") == "65536" && a[i].at("workload") == "append")) {
      ++measured;
      EXPECT_EQ(a[i].at("status"), "ok");
      EXPECT_GT(std::stod(a[i].at("instructions_per_op")), 10.0);  // malloc + free cannot take fewer
    } else {
      // append at 64 KiB grows to 512 KiB: mmap territory, which callgrind cannot count.
      EXPECT_EQ(a[i].at("status"), "refused") << a[i].at("workload");
    }
  }
  EXPECT_EQ(measured, 9);
  const auto json = nlohmann::json::parse(read_file(dir.path() / "a" / "results.json"));
  EXPECT_EQ(json["protocol"]["measure"], "instructions");
  EXPECT_TRUE(json["cells"][0]["processes"][0].contains("data_accesses_per_op"));

  const CliResult gate = run_cli({"gate", "--baseline", (dir.path() / "a").string(), "--candidate",
                                  (dir.path() / "b").string(), "--out", (dir.path() / "g").string()});
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_NE(gate.out.find("regressions: 0\nimprovements: 0\nunchanged: 9"), std::string::npos) << gate.out;
  EXPECT_NE(gate.out.find("Judged on instructions\\_per\\_op"), std::string::npos) << gate.out;
  const auto verdict = nlohmann::json::parse(read_file(dir.path() / "g" / "gate.json"));
  EXPECT_EQ(verdict["cells"][0]["metric"], "instructions_per_op");
  EXPECT_EQ(verdict["cells"][0]["coverage"], 1.0);  // exact counts: no sampling error to bound
}

// A compare of instruction counts names its unit everywhere and, counts being exact, gives a
// verdict with the matrix's 2 processes (no rounds to reach a confidence).
TEST(InstructionsEndToEnd, ACompareOfCountsNamesItsUnitAndNeedsNoRounds) {
  ABENCH_SKIP_UNDER_EMULATION(kNoCallgrindUnderEmulation);
  if (!have_valgrind()) GTEST_SKIP() << "valgrind is not installed";
  testing::TempDir dir;
  const CliResult r = run_cli({"compare",
                               "--baseline",
                               "backend=system,label=A",
                               "--candidate",
                               "backend=system,label=B",
                               "--matrix",
                               "quick",
                               "--measure",
                               "instructions",
                               "--workload",
                               "allocate",
                               "--size",
                               "64",
                               "--align",
                               "256",
                               "--live",
                               "1",
                               "--no-counts",
                               "--out",
                               (dir.path() / "c").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string markdown = read_file(dir.path() / "c" / "compare.md");
  EXPECT_NE(markdown.find("| before instr/op | after instr/op |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("exact counts"), std::string::npos) << markdown;
  const auto rows = testing::read_csv(dir.path() / "c" / "compare.csv");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].at("before_instructions_per_op").empty());
  EXPECT_EQ(rows[0].at("verdict"), "same");  // the same code counts the same: an interval of 0
  const auto json = nlohmann::json::parse(read_file(dir.path() / "c" / "compare.json"));
  EXPECT_EQ(json["metric"], "instructions_per_op");
  EXPECT_EQ(json["processes_per_side"], 2);
}

TEST(InstructionsEndToEnd, UnderEmulationTheyAreRefusedBeforeAnythingRuns) {
  if (!testing::emulator_here())
    GTEST_SKIP() << "not emulated: callgrind runs here (CountsAreIdenticalAcrossRunsAndTheGatePassesThem)";
  testing::TempDir dir;
  const CliResult r = run_cli(instruction_run(dir.path() / "a"));
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--measure instructions: not supported under emulation ("), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "a"));
}

TEST(InstructionsEndToEnd, TouchIsRefusedWithTheReason) {
  ABENCH_SKIP_UNDER_EMULATION(kNoCallgrindUnderEmulation);
  if (!have_valgrind()) GTEST_SKIP() << "valgrind is not installed";
  testing::TempDir dir;
  const CliResult r = run_cli({"run", "--matrix", "quick", "--measure", "instructions", "--touch", "--backend",
                               "system", "--workload", "zeroed", "--size", "64", "--align", "256", "--live", "1",
                               "--no-counts", "--out", (dir.path() / "t").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("REFUSED: in instructions mode, --touch measures first-touch page faults"), std::string::npos)
      << r.out;
}

// Hardware counters: read where this machine has them, else exit 2 "not supported" and no
// result directory at all. Either branch asserts what must hold on that machine.
TEST(PerfEndToEnd, HardwareCountersAreReadOrRefusedWithoutAFigure) {
  testing::TempDir dir;
  const CliResult r =
      run_cli({"run", "--matrix", "quick", "--measure", "perf", "--backend", "system", "--workload", "allocate",
               "--size", "64", "--align", "256", "--live", "1", "--no-counts", "--out", (dir.path() / "p").string()});
  if (const std::string why = perf_unavailable(Measure::perf); !why.empty()) {
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--measure perf: not supported on this machine: " + why), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "p"));
    return;
  }
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto json = nlohmann::json::parse(read_file(dir.path() / "p" / "results.json"));
  const auto& cell = json["cells"][0];
  EXPECT_GT(cell["cycles_per_op"].get<double>(), 10.0);  // malloc + free take more than 10 cycles
  EXPECT_GT(cell["counters_per_op"]["instructions"].get<double>(), 10.0);
  EXPECT_TRUE(cell["counters_per_op"].contains("branch-misses"));
}

// The software counters go through the same group reads as the hardware ones, and this VM
// has them: task-clock per operation must agree with the batch's wall time per operation.
TEST(PerfEndToEnd, SoftwareCountersAreReadAroundEveryBatch) {
  if (const std::string why = perf_unavailable(Measure::perf_software); !why.empty())
    GTEST_SKIP() << "software perf events unavailable here: " << why;
  testing::TempDir dir;
  const CliResult r = run_cli({"run",
                               "--matrix",
                               "quick",
                               "--measure",
                               "perf-sw",
                               "--backend",
                               "system,mimalloc",
                               "--workload",
                               "allocate,grow",
                               "--size",
                               "64",
                               "--align",
                               "256",
                               "--live",
                               "1",
                               "--no-counts",
                               "--processes",
                               "4",
                               "--format",
                               "gbench,go",
                               "--out",
                               (dir.path() / "s").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("task-clock ns/op"), std::string::npos) << r.out;
  const auto json = nlohmann::json::parse(read_file(dir.path() / "s" / "results.json"));
  EXPECT_EQ(json["protocol"]["measure"], "perf-sw");
  EXPECT_EQ(json["protocol"]["perf_mode"]["events"],
            nlohmann::json::array({"task-clock", "page-faults", "context-switches"}));
  for (const auto& worker : json["workers"]) EXPECT_EQ(worker["perf_events"], "kernel software events");
  ASSERT_EQ(json["cells"].size(), 4u);
  for (const auto& cell : json["cells"]) {
    ASSERT_EQ(cell["status"], "ok") << cell.dump();
    const double task_clock = cell["task_clock_ns_per_op"].get<double>();
    const double wall = cell["counters_per_op"]["ns"].get<double>();
    // A single-threaded batch cannot run longer on the CPU than on the clock; how much
    // less depends on the machine's load (descheduled time is wall time only), so no lower
    // bound but that it counted something.
    EXPECT_GT(task_clock, 0.0) << cell.dump();
    EXPECT_LT(task_clock, 1.05 * wall) << cell.dump();
    EXPECT_TRUE(cell["counters_per_op"].contains("page-faults"));
    const auto& process = cell["processes"][0];
    EXPECT_EQ(process["samples_task_clock_ns_per_op"].size(), process["counter_samples_per_op"]["ns"].size());
  }
  const std::string go = read_file(dir.path() / "s" / "go-bench.txt");
  EXPECT_NE(go.find(" task-clock-ns/op "), std::string::npos);  // the unit says what the figure counts
  EXPECT_NE(go.find(" context-switches/op"), std::string::npos);
  const auto gbench = nlohmann::json::parse(read_file(dir.path() / "s" / "benchmark.json"));
  EXPECT_TRUE(gbench["benchmarks"][0].contains("task-clock"));

  // The gate judges the leader metric of two perf-sw runs with the wall-time rules: unpaired
  // (two runs), so 4 processes a side, the fewest whose rank-sum interval reaches 95%.
  const CliResult again =
      run_cli({"run",         "--matrix",        "quick",      "--measure",     "perf-sw",
               "--backend",   "system,mimalloc", "--workload", "allocate,grow", "--size",
               "64",          "--align",         "256",        "--live",        "1",
               "--no-counts", "--processes",     "4",          "--out",         (dir.path() / "t").string()});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const CliResult gate =
      run_cli({"gate", "--baseline", (dir.path() / "s").string(), "--candidate", (dir.path() / "t").string(),
               "--threshold", "1000", "--out", (dir.path() / "g").string()});
  EXPECT_EQ(gate.exit_code, 0) << gate.out << gate.err;
  EXPECT_NE(gate.out.find("unchanged: 4"), std::string::npos) << gate.out;
}

}  // namespace
}  // namespace abench
