// The real launcher against /bin/sh: exit codes, signals, timeouts, stderr, lines, and a
// child that exits without reading its stdin.
#include <gtest/gtest.h>

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
