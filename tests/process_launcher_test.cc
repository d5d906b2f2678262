// The real launcher against /bin/sh: exit codes, signals, timeouts, stderr, lines, and a
// child that exits without reading its stdin.
#include <gtest/gtest.h>

#include <sched.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include "src/run/cpu_affinity.h"
#include "src/run/process_launcher.h"
#include "src/util/interrupt.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

LaunchOutcome run_sh(const std::string& script, std::vector<std::string>* lines = nullptr, std::string stdin_text = "",
                     double timeout_s = 30) {
  ProcessLauncher launcher;
  return launcher.run({"/bin/sh", {"-c", script}, {{"ABENCH_TEST_VAR", "42"}}, std::move(stdin_text), timeout_s},
                      [&](std::string_view line) {
                        if (lines) lines->emplace_back(line);
                        return 0.0;
                      });
}

TEST(ProcessLauncher, DeliversProtocolLinesFromItsOwnDescriptorAndExitCode) {
  std::vector<std::string> lines;
  const LaunchOutcome o = run_sh("echo one >&3; echo plugin chatter; echo two >&3; printf three >&3; exit 5", &lines);
  EXPECT_EQ(o.exit_code, 5);
  EXPECT_EQ(describe(o), "exit code 5");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
  // stdout is the plugin's, kept as its output, never read as protocol.
  EXPECT_EQ(o.stdout_tail, "plugin chatter\n");
}

// A counting run beside the timed rounds runs in the idle class; abench's own threads never do.
TEST(ProcessLauncher, AnIdleClassWorkerRunsInSchedIdleAndOthersDoNot) {
  ProcessLauncher launcher;
  const auto policy_of_worker = [&](bool idle) {
    LaunchRequest request{"/bin/sh", {"-c", "cut -d' ' -f41 /proc/$$/stat >&3"}, {}, "", 30};
    request.idle_class = idle;
    std::string line;
    const LaunchOutcome o = launcher.run(request, [&](std::string_view l) {
      line = l;
      return 0.0;
    });
    EXPECT_EQ(o.exit_code, 0) << o.stderr_tail;
    return line;
  };
  EXPECT_EQ(policy_of_worker(true), std::to_string(SCHED_IDLE));
  EXPECT_EQ(policy_of_worker(false), std::to_string(sched_getscheduler(0)));
  EXPECT_NE(sched_getscheduler(0), SCHED_IDLE);
}

TEST(ProcessLauncher, OutputWithoutANewlineCannotMergeWithAProtocolLine) {
  std::vector<std::string> lines;
  run_sh("printf 'garbage without newline'; echo '{\"type\":\"done\"}' >&3", &lines);
  EXPECT_EQ(lines, (std::vector<std::string>{R"({"type":"done"})"}));
}

TEST(ProcessLauncher, PassesStdinAndEnvironmentNamingTheProtocolDescriptor) {
  std::vector<std::string> lines;
  run_sh("read line; echo \"$line $ABENCH_TEST_VAR $ABENCH_PROTOCOL_FD\" >&3", &lines, "hello\n");
  EXPECT_EQ(lines, (std::vector<std::string>{"hello 42 3"}));
}

TEST(ProcessLauncher, TheRequestsEnvironmentWinsOverAnInheritedValue) {
  setenv("ABENCH_TEST_VAR", "inherited", 1);
  std::vector<std::string> lines;
  run_sh("echo \"$ABENCH_TEST_VAR\" >&3", &lines);
  unsetenv("ABENCH_TEST_VAR");
  EXPECT_EQ(lines, (std::vector<std::string>{"42"}));
}

TEST(ProcessLauncher, ReportsTheSignalAndStderrTail) {
  const LaunchOutcome o = run_sh("echo 'about to crash' >&2; kill -SEGV $$");
  EXPECT_EQ(o.signal, 11);
  EXPECT_EQ(describe(o), "killed by signal 11 (SEGV)");
  EXPECT_EQ(o.stderr_tail, "about to crash\n");
}

TEST(ProcessLauncher, OutputTailsAreMadePrintable) {
  const LaunchOutcome o = run_sh("printf 'bad \\377 byte\\n' >&2; printf 'caf\\303\\251\\033[2J'");
  EXPECT_EQ(o.stderr_tail, "bad \\xff byte\n");
  EXPECT_EQ(o.stdout_tail, "caf\xc3\xa9\\x1b[2J");
}

TEST(ProcessLauncher, KillsAWorkerSilentPastItsAllowanceWithItsChildren) {
  testing::TempDir dir;
  const auto marker = dir.path() / "grandchild-alive";
  // A child of the worker (a plugin's helper) dies with it: the whole process group goes.
  const LaunchOutcome o = run_sh("(sleep 2; touch " + marker.string() + ") & sleep 30", nullptr, "", 0.3);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, 9);
  EXPECT_EQ(describe(o), "hung: no report within 0.3 s, killed");
  sleep(3);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// A worker outside the process group named by its pid (here it leaves it; under qemu-user
// a child stuck between fork and exec never gets there) is killed itself: killing only the
// group left the launcher waiting for it (abench hung for as long as the child lived).
TEST(ProcessLauncher, KillsAWorkerThatIsNotInItsOwnProcessGroup) {
  const auto start = std::chrono::steady_clock::now();
  const LaunchOutcome o = run_sh("exec perl -e 'setpgrp(0, getpgrp(getppid())) or die $!; sleep 60'", nullptr, "", 0.5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, 9);
  EXPECT_LT(seconds, 10);
}

TEST(ProcessLauncher, EachProtocolLineSetsTheAllowanceForTheNext) {
  ProcessLauncher launcher;
  int lines = 0;
  // 0.2 s between lines with a first allowance of 5 s: the second line must come within
  // the 0.1 s the first one's handler allows.
  const LaunchOutcome o =
      launcher.run({"/bin/sh", {"-c", "echo a >&3; sleep 1; echo b >&3"}, {}, "", 5}, [&](std::string_view) {
        ++lines;
        return 0.1;
      });
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(lines, 1);
}

TEST(ProcessLauncher, AnEndlessProtocolLineStopsTheWorkerQuicklyAndBounded) {
  // 64 MiB without a newline used to be rescanned on every read: seconds of CPU, 130 MiB.
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::string> lines;
  const LaunchOutcome o = run_sh("head -c 67108864 /dev/zero | tr '\\0' x >&3", &lines);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(lines.empty());
  EXPECT_NE(o.protocol_error.find("longer than 1048576 bytes"), std::string::npos) << describe(o);
  EXPECT_LT(seconds, 10);
}

TEST(ProcessLauncher, ManyLinesInOneReadAreSplitInLinearTime) {
  std::vector<std::string> lines;
  run_sh("i=0; while [ $i -lt 20000 ]; do echo \"line $i\"; i=$((i+1)); done >&3", &lines);
  ASSERT_EQ(lines.size(), 20000u);
  EXPECT_EQ(lines.back(), "line 19999");
}

TEST(ProcessLauncher, AHandlerThatThrowsStopsTheWorkerBeforeTheExceptionLeaves) {
  ProcessLauncher launcher;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(launcher.run({"/bin/sh", {"-c", "echo line >&3; sleep 30"}, {}, "", 60},
                            [](std::string_view) -> double { throw std::runtime_error("cannot write results"); }),
               std::runtime_error);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
}

TEST(ProcessLauncher, AnInterruptStopsTheWorkerAndSaysSo) {
  ProcessLauncher launcher;
  std::thread interrupter([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(getpid(), SIGINT);
  });
  install_interrupt_handlers();
  const LaunchOutcome o =
      launcher.run({"/bin/sh", {"-c", "sleep 30"}, {}, "", 60}, [](std::string_view) { return 0.0; });
  interrupter.join();
  EXPECT_EQ(o.interrupted_by, SIGINT);
  EXPECT_EQ(o.signal, 9);
  EXPECT_NE(describe(o).find("interrupted"), std::string::npos);
  clear_interrupt();
  signal(SIGINT, SIG_DFL);
}

TEST(ProcessLauncher, SurvivesAChildThatExitsWithoutReadingStdin) {
  // 1 MiB of stdin to a child that never reads it: abench must see EPIPE, not SIGPIPE.
  const LaunchOutcome o = run_sh("exit 3", nullptr, std::string(1 << 20, 'x'));
  EXPECT_EQ(o.exit_code, 3);
}

TEST(ProcessLauncher, MissingExecutableIsReportedNotThrown) {
  ProcessLauncher launcher;
  const LaunchOutcome o =
      launcher.run({"/nonexistent/abench-worker-x", {}, {}, "", 5}, [](std::string_view) { return 0.0; });
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
