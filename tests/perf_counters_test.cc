// The perf event group: opened on this thread, counting user-space work between reads.
#include <gtest/gtest.h>

#include "harness/perf_counters.h"

namespace abench {
namespace {

TEST(PerfCounters, EachPerfMeasureHasItsLeaderFirst) {
  EXPECT_STREQ(perf_events_of(Measure::perf).front().name, "cycles");
  EXPECT_EQ(perf_events_of(Measure::perf).size(), 3u);
  EXPECT_STREQ(perf_events_of(Measure::perf_software).front().name, "task-clock");
  EXPECT_TRUE(perf_events_of(Measure::time).empty());
  EXPECT_EQ(perf_unavailable(Measure::time), "no events to count");
}

TEST(PerfCounters, TaskClockGrowsWithTheWorkBetweenReads) {
  PerfGroup group;
  if (const std::string why = group.open(perf_events_of(Measure::perf_software)); !why.empty())
    GTEST_SKIP() << "software perf events unavailable here: " << why;
  ASSERT_EQ(group.size(), 3u);
  std::vector<std::uint64_t> before(3), after(3), idle(3);
  group.read(before);
  volatile std::uint64_t sink = 0;
  for (std::uint64_t i = 0; i < 20'000'000; ++i) sink = sink + i;
  group.read(after);
  // 20 million dependent additions through memory take well over a millisecond.
  EXPECT_GT(after[0] - before[0], 1'000'000u);
  group.read(idle);
  EXPECT_LT(idle[0] - after[0], after[0] - before[0]);
}

}  // namespace
}  // namespace abench
