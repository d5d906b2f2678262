#include <gtest/gtest.h>

#include "src/stats/statistics.h"

namespace abench {
namespace {

struct MedianCase {
  std::vector<double> values;
  double expected;
};

TEST(Statistics, Median) {
  const std::vector<MedianCase> cases{
      {{5}, 5}, {{3, 1}, 2}, {{9, 1, 5}, 5}, {{4, 1, 3, 2}, 2.5}, {{7, 7, 7, 1, 100}, 7}};
  for (const auto& c : cases) EXPECT_DOUBLE_EQ(median(c.values), c.expected);
}

TEST(Statistics, MinimumMaximum) {
  EXPECT_DOUBLE_EQ(minimum({3, -1, 2}), -1);
  EXPECT_DOUBLE_EQ(maximum({3, -1, 2}), 3);
}

TEST(Statistics, MedianOfProcessMedians) {
  EXPECT_DOUBLE_EQ(median_of_medians({{1, 2, 3}, {10, 20, 30}, {4, 5, 6}}), 5);
}

TEST(Statistics, EmptyInputIsAnError) {
  EXPECT_THROW(median({}), std::invalid_argument);
  EXPECT_THROW(minimum({}), std::invalid_argument);
}

}  // namespace
}  // namespace abench
