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
  const auto before = group.read();
  volatile std::uint64_t sink = 0;
  for (std::uint64_t i = 0; i < 20'000'000; ++i) sink = sink + i;
  const auto after = group.read();
  ASSERT_EQ(after.size(), 3u);
  // 20 million dependent additions through memory take well over a millisecond.
  EXPECT_GT(after[0] - before[0], 1'000'000u);
  const auto idle = group.read();
  EXPECT_LT(idle[0] - after[0], after[0] - before[0]);
}

}  // namespace
}  // namespace abench
