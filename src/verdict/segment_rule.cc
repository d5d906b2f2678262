#include "src/verdict/segment_rule.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "src/stats/statistics.h"

namespace abench {

Judgement judge_against_segment(const std::vector<double>& segment, const std::vector<double>& runs, double confidence,
                                double bar, double margin) {
  Judgement j;
  j.replicates = static_cast<int>(segment.size());
  auto all_positive = [](const std::vector<double>& v) {
    return std::all_of(v.begin(), v.end(), [](double x) { return x > 0; });
  };
  const bool positive = !runs.empty() && all_positive(runs) && all_positive(segment);
  if (segment.size() < kMinSegmentPoints || !positive) {
    j.reason = !positive ? "a figure that is not positive has no ratio"
                         : fmt::format("{} points since the last change point (at least {} judge a run)",
                                       segment.size(), kMinSegmentPoints);
    return j;
  }
  const double n = static_cast<double>(segment.size());
  double mean = 0;
  for (double x : segment) mean += std::log(x) / n;
  double squares = 0;
  for (double x : segment) squares += (std::log(x) - mean) * (std::log(x) - mean);
  // Counts that repeat exactly have no spread, whatever the rounding of their logs says.
  const bool alike = std::adjacent_find(segment.begin(), segment.end(), std::not_equal_to<>()) == segment.end();
  const double sd = alike ? 0 : std::sqrt(squares / (n - 1));
  const double k = static_cast<double>(runs.size());
  double distance = -mean;
  for (double x : runs) distance += std::log(x) / k;
  const double half = student_t_quantile((1 + confidence) / 2, n - 1) * sd * std::sqrt(1 / k + 1 / n);
  j.change = std::expm1(distance);
  j.low = std::expm1(distance - half);
  j.high = std::expm1(distance + half);
  j.coverage = half > 0 ? confidence : 1;  // a segment without spread: every run alike
  j.call = call_of(j.change, j.low, j.high, bar, margin);
  j.detectable = detectable_change(j.change, j.low, j.high, bar);
  return j;
}

}  // namespace abench
