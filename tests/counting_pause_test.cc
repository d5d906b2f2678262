// CountingPause against real processes: a counting worker is stopped while a timed worker
// samples, continued after, and its allowance's clock stands still while it is stopped.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "src/run/counting_pause.h"
#include "src/run/process_launcher.h"

namespace abench {
namespace {

using namespace std::chrono_literals;

// A child that sleeps until killed.
pid_t sleeping_child() {
  const pid_t pid = fork();
  if (pid == 0) {
    for (;;) pause();
  }
  return pid;
}

// The state letter in /proc/PID/stat: 'T' stopped, 'S' sleeping, 'R' running.
char state_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '?' : text[close + 2];
}

// A signal lands when the child is next scheduled: wait for the state, up to 5 s.
bool reaches(pid_t pid, bool stopped) {
  for (int i = 0; i < 500; ++i) {
    if ((state_of(pid) == 'T') == stopped) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

void end_child(pid_t pid) {
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
}

TEST(CountingPause, StopsTheCountingWorkerWhileAnyTimedWorkerSamples) {
  if (!CountingPause::supported()) GTEST_SKIP() << "no pidfds here";
  CountingPause pause;
  const pid_t child = sleeping_child();
  pause.counting_started(child);
  pause.counting_reported();
  EXPECT_TRUE(reaches(child, false));
  pause.set_sampling(3, true);
  EXPECT_TRUE(reaches(child, true)) << "state " << state_of(child);
  pause.set_sampling(4, true);  // the other side of a paced pair
  pause.set_sampling(3, false);
  std::this_thread::sleep_for(50ms);
  EXPECT_EQ(state_of(child), 'T') << "continued while worker 4 still samples";
  pause.set_sampling(4, false);
  EXPECT_TRUE(reaches(child, false));
  EXPECT_GE(pause.counting_ended(), 0.04);  // stopped for the 50 ms at least
  end_child(child);
}

// Not before its first line: until its exec (which under qemu-user comes after the spawn
// returns) it is a copy of abench, holding abench's pipes.
TEST(CountingPause, ACountingWorkerIsStoppedOnlyOnceItHasReported) {
  if (!CountingPause::supported()) GTEST_SKIP() << "no pidfds here";
  CountingPause pause;
  pause.set_sampling(0, true);
  const pid_t child = sleeping_child();
  pause.counting_started(child);
  std::this_thread::sleep_for(50ms);
  EXPECT_NE(state_of(child), 'T') << "stopped before its first line";
  pause.counting_reported();
  EXPECT_TRUE(reaches(child, true));
  pause.set_sampling(0, false);
  EXPECT_TRUE(reaches(child, false));
  pause.counting_ended();
  end_child(child);
}

TEST(CountingPause, ItsClockStandsStillWhileItIsStopped) {
  if (!CountingPause::supported()) GTEST_SKIP() << "no pidfds here";
  CountingPause pause;
  const pid_t child = sleeping_child();
  pause.counting_started(child);
  pause.counting_reported();
  const auto started = pause.clock_start();
  pause.set_sampling(1, true);
  std::this_thread::sleep_for(30ms);
  // While stopped, the allowance counts from now: it never runs out.
  EXPECT_GE(pause.clock_start() - started, 25ms);
  EXPECT_GE(pause.clock_start(), std::chrono::steady_clock::now() - 5ms);
  pause.set_sampling(1, false);
  const auto resumed = pause.clock_start();
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(pause.clock_start(), resumed);  // running again: from when it went on
  pause.counting_ended();
  end_child(child);
}

// The counting lane waits for the quiet: it returns once the last timed worker has sampled.
TEST(CountingPause, WaitUntilQuietReturnsWhenTheLastSamplerEnds) {
  CountingPause pause;
  pause.set_sampling(7, true);
  std::stop_source never;
  const auto start = std::chrono::steady_clock::now();
  std::thread later([&] {
    std::this_thread::sleep_for(40ms);
    pause.set_sampling(7, false);
  });
  pause.wait_until_quiet(never.get_token());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 35ms);
  later.join();
  // And a stop request ends the wait too.
  pause.set_sampling(8, true);
  std::stop_source stop;
  std::thread stopper([&] { stop.request_stop(); });
  pause.wait_until_quiet(stop.get_token());
  stopper.join();
}

TEST(ProcessLauncher, TellsTheCallerTheWorkersPidAsItIsSpawned) {
  ProcessLauncher launcher;
  LaunchRequest request{"/bin/sh", {"-c", "echo $$ >&3"}, {}, "", 30};
  pid_t told = -1;
  request.on_spawned = [&](pid_t pid) { told = pid; };
  std::string line;
  launcher.run(request, [&](std::string_view l) {
    line = std::string(l);
    return 0.0;
  });
  EXPECT_EQ(std::to_string(told), line);
}

}  // namespace
}  // namespace abench
