// The frame a worker starts in (src/run/launch_frame.h), seen from the started process: the
// kernel's record of where its stack and heap began (/proc/PID/stat), for /bin/sh started by
// the real launcher through a short path and through a link 180 characters longer with 3,000
// bytes more environment, as two builds at two checkouts would be.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "src/run/launch_frame.h"
#include "src/run/process_launcher.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

// "startstack start_brk" of a started /bin/sh (fields 28 and 47 of its stat).
std::string start_addresses(const std::string& sh, const std::vector<std::pair<std::string, std::string>>& env,
                            const FrameSize& frame, int shift, bool fixed) {
  LaunchRequest request{sh, {"-c", "cut -d' ' -f28,47 /proc/$$/stat >&3"}, env, "", 30};
  request.frame = frame;
  request.stack_shift = shift;
  request.fixed_addresses = fixed;
  std::string line;
  ProcessLauncher launcher;
  const LaunchOutcome o = launcher.run(request, [&](std::string_view l) {
    line = l;
    return 0.0;
  });
  EXPECT_EQ(o.exit_code, 0) << o.start_error << o.stderr_tail;
  return line;
}

class LaunchFrame : public ::testing::Test {
 protected:
  void SetUp() override {
    ABENCH_SKIP_UNDER_EMULATION("the emulator lays out its guest's stack and heap itself");
    const std::filesystem::path deep = dir.path() / std::string(90, 'd') / std::string(90, 'e');
    std::filesystem::create_directories(deep);
    std::filesystem::create_directories(copies);
    long_sh = (deep / "sh").string();
    std::filesystem::create_symlink("/bin/sh", long_sh);
    Variant variant;
    variant.env = {{"ABENCH_TEST_PADDING", std::string(3000, 'p')}};
    frame = frame_for({variant}, RunProtocol{}, [&](const Variant&, WorkerMode) { return long_sh; }, "", "",
                      {copies.string(), {}});
  }
  testing::TempDir dir;
  std::filesystem::path copies = dir.path() / "copies";
  std::string long_sh;
  FrameSize frame;
  const std::vector<std::pair<std::string, std::string>> more_env{{"ABENCH_TEST_PADDING", std::string(3000, 'p')}};
};

TEST_F(LaunchFrame, TwoPathsAndEnvironmentsStartAtTheSameAddressesInOneFrame) {
  const std::string near = start_addresses("/bin/sh", {}, frame, 0, true);
  EXPECT_EQ(start_addresses(long_sh, more_env, frame, 0, true), near);
  EXPECT_EQ(start_addresses(long_sh, more_env, frame, 0, true), near);
  // Without the frame, the longer path and environment move the stack.
  EXPECT_NE(start_addresses(long_sh, more_env, {}, 0, true), start_addresses("/bin/sh", {}, {}, 0, true));
}

// Its own copy: the worker runs from a file made for it alone (its code in page-cache pages of
// its own), in the same frame, and the file is gone once the worker has ended.
TEST_F(LaunchFrame, AFreshCopyRunsInTheSameFrameAndIsRemovedWhenTheWorkerEnds) {
  const auto run = [&](bool copy) {
    LaunchRequest request{long_sh, {"-c", "cut -d' ' -f28 /proc/$$/stat >&3; readlink /proc/$$/exe >&3"}, {}, "", 30};
    request.frame = frame;
    request.fixed_addresses = true;
    if (copy) request.fresh_copy_dir = copies.string();
    std::vector<std::string> lines;
    ProcessLauncher launcher;
    const LaunchOutcome o = launcher.run(request, [&](std::string_view l) {
      lines.emplace_back(l);
      return 0.0;
    });
    EXPECT_EQ(o.exit_code, 0) << o.start_error << o.stderr_tail;
    return lines;
  };
  const std::vector<std::string> copied = run(true), original = run(false);
  ASSERT_EQ(copied.size(), 2u);
  ASSERT_EQ(original.size(), 2u);
  EXPECT_EQ(copied[0], original[0]) << "the copy's shorter path is padded to the same frame";
  EXPECT_TRUE(copied[1].starts_with(copies.string() + "/w")) << copied[1];
  EXPECT_FALSE(copied[1].ends_with(" (deleted)")) << copied[1] << ": removed only once the worker has ended";
  EXPECT_TRUE(std::filesystem::is_empty(copies));
}

TEST_F(LaunchFrame, AShiftMovesTheStackByExactlyThatManyBytes) {
  const auto stack_of = [&](const std::string& sh, int shift) {
    const std::string line = start_addresses(sh, {}, frame, shift, true);
    return std::stoull(line.substr(0, line.find(' ')));
  };
  const unsigned long long at_zero = stack_of("/bin/sh", 0);
  EXPECT_EQ(at_zero - stack_of("/bin/sh", 1024), 1024u);
  EXPECT_EQ(at_zero - stack_of(long_sh, 4080), 4080u);
}

TEST_F(LaunchFrame, TheKernelsLayoutDiffersFromProcessToProcess) {
  std::set<std::string> seen;
  for (int i = 0; i < 4; ++i) seen.insert(start_addresses("/bin/sh", {}, frame, 0, false));
  // 4 draws of address randomisation's stack (and heap) placements: equal twice about once in
  // a million.
  EXPECT_GE(seen.size(), 3u);
}

TEST_F(LaunchFrame, AnEnvironmentLargerThanTheFrameIsRefusedNotTruncated) {
  LaunchRequest request{
      "/bin/sh", {"-c", "exit 0"}, {{"ABENCH_TEST_PADDING", std::string(frame.strings_bytes, 'p')}}, "", 30};
  request.frame = frame;
  ProcessLauncher launcher;
  const LaunchOutcome o = launcher.run(request, [](std::string_view) { return 0.0; });
  EXPECT_FALSE(o.started);
  EXPECT_NE(o.start_error.find("do not fit the run's frame"), std::string::npos) << o.start_error;
}

TEST(LayoutDraw, RoundsDrawTheirOwnShiftFromTheSeedAndBothSidesGetTheSame) {
  RunProtocol p;
  p.seed = 12345;
  std::set<int> shifts;
  for (int round = 0; round < 64; ++round) {
    const auto layout = layout_for(p, round, WorkerMode::time);
    ASSERT_TRUE(layout);
    EXPECT_EQ(layout, layout_for(p, round, WorkerMode::time));
    EXPECT_EQ(layout->stack_shift % 16, 0);
    EXPECT_LT(layout->stack_shift, 4096);
    shifts.insert(layout->stack_shift);
  }
  EXPECT_GT(shifts.size(), 40u);  // 64 draws from 256 values
  EXPECT_EQ(layout_for(p, 3, WorkerMode::count)->stack_shift, 0);
  p.measure = Measure::instructions;  // counts must repeat
  EXPECT_EQ(layout_for(p, 3, WorkerMode::time)->stack_shift, 0);
  p.measure = Measure::time;
  p.layout = LayoutMode::fixed;
  EXPECT_EQ(layout_for(p, 3, WorkerMode::time)->stack_shift, 0);
  p.layout = LayoutMode::kernel;
  EXPECT_FALSE(layout_for(p, 3, WorkerMode::time));
}

}  // namespace
}  // namespace abench
