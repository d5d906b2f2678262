// The perf event group: opened on this thread, counting user-space work between reads.
#include <gtest/gtest.h>

#include <linux/perf_event.h>

#include <map>
#include <memory>

#include "harness/cpu_list.h"
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

namespace abench {
namespace {

// A canned /sys/bus/event_source/devices: PMU name -> {file -> first line}.
EventSources canned(std::map<std::string, std::map<std::string, std::string>> tree) {
  auto shared = std::make_shared<decltype(tree)>(std::move(tree));
  return {[shared] {
            std::vector<std::string> names;
            for (const auto& [name, files] : *shared) names.push_back(name);
            return names;
          },
          [shared](const std::string& pmu, const std::string& file) -> std::optional<std::string> {
            const auto p = shared->find(pmu);
            if (p == shared->end()) return std::nullopt;
            const auto f = p->second.find(file);
            if (f == p->second.end()) return std::nullopt;
            return f->second;
          }};
}

// An RK3588 (4 Cortex-A55 + 4 Cortex-A76): one PMUv3 PMU per kind of core.
const auto kBigLittle = [] {
  return canned({{"armv8_cortex_a55", {{"type", "8"}, {"cpus", "0-3"}}},
                 {"armv8_cortex_a76", {{"type", "9"}, {"cpus", "4-7"}}},
                 {"software", {{"type", "1"}}},
                 {"breakpoint", {{"type", "5"}}}});
};

TEST(PerfEvents, OnBigLittleTheEventsGoToThePmuOfTheCpuTheWorkerRunsOn) {
  const PerfEventPlan little = perf_events_for(Measure::perf, 2, "aarch64", kBigLittle());
  const PerfEventPlan big = perf_events_for(Measure::perf, 6, "aarch64", kBigLittle());
  ASSERT_EQ(little.events.size(), 3u);
  for (const auto& e : little.events) EXPECT_EQ(e.type, 8u) << e.name;
  for (const auto& e : big.events) EXPECT_EQ(e.type, 9u) << e.name;
  EXPECT_STREQ(big.events[0].name, "cycles");
  EXPECT_EQ(big.events[0].config, 0x11u);  // CPU_CYCLES
  EXPECT_EQ(big.events[1].config, 0x08u);  // INST_RETIRED
  EXPECT_EQ(big.events[2].config, 0x10u);  // BR_MIS_PRED
  EXPECT_NE(big.source.find("armv8_cortex_a76 (PMU type 9, CPU 6)"), std::string::npos) << big.source;
}

TEST(PerfEvents, ServersArmv9AndEverythingElseAreAskedAsTheKernelKnowsThem) {
  const auto graviton = canned({{"armv8_pmuv3_0", {{"type", "10"}, {"cpus", "0-63"}}}});
  EXPECT_EQ(perf_events_for(Measure::perf, 63, "aarch64", graviton).events[0].type, 10u);
  const auto x2 = canned({{"armv9_cortex_x2", {{"type", "11"}, {"cpus", "7"}}}});
  EXPECT_EQ(perf_events_for(Measure::perf, 7, "aarch64", x2).events[1].type, 11u);
  // Apple's PMUs are not PMUv3, a CPU no PMU lists, x86, and no CPU known: the generic events.
  const auto m1 = canned({{"apple_icestorm_pmu", {{"type", "8"}, {"cpus", "0-3"}}},
                          {"apple_firestorm_pmu", {{"type", "9"}, {"cpus", "4-7"}}}});
  for (const PerfEventPlan& plan :
       {perf_events_for(Measure::perf, 5, "aarch64", m1), perf_events_for(Measure::perf, 64, "aarch64", graviton),
        perf_events_for(Measure::perf, 0, "x86_64", graviton),
        perf_events_for(Measure::perf, -1, "aarch64", graviton)}) {
    EXPECT_EQ(plan.events[0].type, static_cast<std::uint32_t>(PERF_TYPE_HARDWARE));
    EXPECT_EQ(plan.events[1].config, static_cast<std::uint64_t>(PERF_COUNT_HW_INSTRUCTIONS));
    EXPECT_EQ(plan.source, "generic hardware events (PERF_TYPE_HARDWARE)");
  }
  // Software events are the kernel's on every PMU; time needs none.
  EXPECT_EQ(perf_events_for(Measure::perf_software, 2, "aarch64", kBigLittle()).events[0].type,
            static_cast<std::uint32_t>(PERF_TYPE_SOFTWARE));
  EXPECT_TRUE(perf_events_for(Measure::time, 2, "aarch64", kBigLittle()).events.empty());
}

TEST(PerfEvents, BrokenSysfsFilesFallBackToTheGenericEvents) {
  const auto broken = canned({{"armv8_pmuv3_0", {{"type", "eight"}, {"cpus", "0-3"}}},
                              {"armv8_pmuv3_1", {{"cpus", "0-3"}}},
                              {"armv8_pmuv3_2", {{"type", "12"}, {"cpus", "x-y"}}}});
  EXPECT_EQ(perf_events_for(Measure::perf, 1, "aarch64", broken).events[0].type,
            static_cast<std::uint32_t>(PERF_TYPE_HARDWARE));
}

TEST(PerfEvents, KernelCpuLists) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("2,x,5-4,7"), (std::vector<int>{2, 7}));  // what cannot be read is left out
  EXPECT_TRUE(parse_cpu_list("0-2000000000").empty());
  EXPECT_TRUE(cpu_list_holds("0-3,8,10-11", 0));
  EXPECT_TRUE(cpu_list_holds("0-3,8,10-11", 8));
  EXPECT_TRUE(cpu_list_holds("0-3,8,10-11", 11));
  EXPECT_FALSE(cpu_list_holds("0-3,8,10-11", 9));
  EXPECT_FALSE(cpu_list_holds("0-3,8,10-11", 12));
  EXPECT_FALSE(cpu_list_holds("", 0));
  EXPECT_FALSE(cpu_list_holds("garbage", 0));
}

}  // namespace
}  // namespace abench
