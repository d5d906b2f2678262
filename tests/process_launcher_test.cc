// The real launcher against /bin/sh: exit codes, signals, timeouts, stderr, lines, and a
// child that exits without reading its stdin.
#include <gtest/gtest.h>

#include <sched.h>

#include <algorithm>

#include "src/process_launcher.h"

namespace abench {
namespace {

LaunchOutcome run_sh(const std::string& script, std::vector<std::string>* lines = nullptr,
                     std::string stdin_text = "", double timeout_s = 30) {
  ProcessLauncher launcher;
  return launcher.run({"/bin/sh", {"-c", script}, {{"ABENCH_TEST_VAR", "42"}}, std::move(stdin_text), timeout_s},
                      [&](std::string_view line) {
                        if (lines) lines->emplace_back(line);
                      });
}

TEST(ProcessLauncher, DeliversStdoutLinesAndExitCode) {
  std::vector<std::string> lines;
  const LaunchOutcome o = run_sh("echo one; echo two; printf three; exit 5", &lines);
  EXPECT_EQ(o.exit_code, 5);
  EXPECT_EQ(describe(o), "exit code 5");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
}

TEST(ProcessLauncher, PassesStdinAndEnvironment) {
  std::vector<std::string> lines;
  run_sh("read line; echo \"$line $ABENCH_TEST_VAR\"", &lines, "hello\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"hello 42"}));
}

TEST(ProcessLauncher, ReportsTheSignalAndStderrTail) {
  const LaunchOutcome o = run_sh("echo 'about to crash' >&2; kill -SEGV $$");
  EXPECT_EQ(o.signal, 11);
  EXPECT_EQ(describe(o), "killed by signal 11 (SEGV)");
  EXPECT_EQ(o.stderr_tail, "about to crash\n");
}

TEST(ProcessLauncher, KillsAWorkerPastItsTimeout) {
  const LaunchOutcome o = run_sh("sleep 30", nullptr, "", 0.3);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, 9);
}

TEST(ProcessLauncher, SurvivesAChildThatExitsWithoutReadingStdin) {
  // 1 MiB of stdin to a child that never reads it: abench must see EPIPE, not SIGPIPE.
  const LaunchOutcome o = run_sh("exit 3", nullptr, std::string(1 << 20, 'x'));
  EXPECT_EQ(o.exit_code, 3);
}

TEST(ProcessLauncher, MissingExecutableIsReportedNotThrown) {
  ProcessLauncher launcher;
  const LaunchOutcome o = launcher.run({"/nonexistent/abench-worker-x", {}, {}, "", 5}, [](std::string_view) {});
  EXPECT_FALSE(o.started);
  EXPECT_NE(describe(o).find("No such file or directory"), std::string::npos) << describe(o);
}

}  // namespace
}  // namespace abench

namespace abench {
namespace {

std::vector<int> own_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// calibrate and the gate run several plans in one process: each must start from the CPUs
// abench was started with, or the second would pin its workers where abench itself runs.
TEST(OrchestratorCpus, ASecondRunStartsFromTheFullSet) {
  const std::vector<int> full = own_cpus();
  if (full.size() < 2) GTEST_SKIP() << "needs two allowed CPUs";
  const std::vector<int> first = keep_orchestrator_off_cpu(full.back());
  EXPECT_EQ(std::count(first.begin(), first.end(), full.back()), 0);
  release_orchestrator_cpus();
  EXPECT_EQ(own_cpus(), full);
  const std::vector<int> second = keep_orchestrator_off_cpu(full.back());
  EXPECT_EQ(second, first);
  release_orchestrator_cpus();
  EXPECT_EQ(own_cpus(), full);
}

}  // namespace
}  // namespace abench
