// Which CPUs work beside the timed rounds may use: never the measured one, never an SMT
// sibling of it; counting runs take the last (a fake sysfs topology).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/run/beside_cpus.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

void siblings(const std::filesystem::path& sysfs, int cpu, const std::string& list) {
  std::filesystem::create_directories(sysfs / ("cpu" + std::to_string(cpu)) / "topology");
  std::ofstream(sysfs / ("cpu" + std::to_string(cpu)) / "topology" / "thread_siblings_list") << list << "\n";
}

TEST(CountingLane, TakesTheLastOwnCpuThatIsNotTheMeasuredOneOrItsSibling) {
  testing::TempDir dir;
  const auto sysfs = dir.path();
  siblings(sysfs, 3, "3");
  EXPECT_EQ(counting_lane_cpu(3, {0, 1, 2}, sysfs.string()), 2);
  // CPU 7 shares its core with CPU 3: the next one down.
  siblings(sysfs, 7, "3,7");
  EXPECT_EQ(counting_lane_cpu(7, {0, 1, 2, 3, 4, 5, 6}, sysfs.string()), 6);
  EXPECT_EQ(counting_lane_cpu(7, {3}, sysfs.string()), -1);
  // A two-CPU machine of one core with two threads: nowhere to go.
  siblings(sysfs, 1, "0-1");
  EXPECT_EQ(counting_lane_cpu(1, {0}, sysfs.string()), -1);
  // Not pinned, or no CPU but the measured one.
  EXPECT_EQ(counting_lane_cpu(-1, {0, 1}, sysfs.string()), -1);
  EXPECT_EQ(counting_lane_cpu(3, {}, sysfs.string()), -1);
  // No topology readable: only the measured CPU itself is excluded.
  EXPECT_EQ(counting_lane_cpu(5, {0, 1}, (sysfs / "absent").string()), 1);
}

TEST(BesideCpus, EveryOwnCpuButTheMeasuredOneAndItsSiblings) {
  testing::TempDir dir;
  const auto sysfs = dir.path();
  siblings(sysfs, 7, "3,7");
  EXPECT_EQ(beside_cpus(7, {0, 1, 2, 3, 4, 5, 6}, sysfs.string()), (std::vector<int>{0, 1, 2, 4, 5, 6}));
  EXPECT_TRUE(beside_cpus(-1, {0, 1}, sysfs.string()).empty());
  EXPECT_TRUE(beside_cpus(7, {3}, sysfs.string()).empty());
}

}  // namespace
}  // namespace abench
