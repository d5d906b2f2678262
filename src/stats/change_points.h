// Change points of a series (docs/statistics.md, "Change points"): E-divisive means
// (Matteson & James, 2014) finds where a segment splits best, by the energy distance of
// the two sides; a split is kept when Welch's t-test calls the two sides different at
// `alpha` and the step is at least `min_step` (the cell's own detectable change), as
// MongoDB's Hunter (now Apache Otava) replaced the permutation test with a t-test:
// deterministic, and fast enough for years of CI. Kept splits are split again.
#pragma once

#include <cstddef>
#include <vector>

namespace abench {

struct ChangePointRule {
  double alpha = 0.001;         // the t-test's significance
  double min_step = 0.01;       // the smallest relative step reported (after / before - 1)
  std::size_t min_segment = 5;  // points on each side of a split, at least (fewer: docs/statistics.md)
};

struct ChangePoint {
  std::size_t index = 0;         // the first point after the change
  double before = 0, after = 0;  // the means of the segments on each side
  double step = 0;               // after / before - 1
  double p_value = 1;
};

// The change points of `series` (positive figures, in order), ascending by index. The test
// runs on the logs, so a step is a ratio.
std::vector<ChangePoint> change_points(const std::vector<double>& series, const ChangePointRule& rule);

// Welch's t-test of two samples: the two-sided p-value of a difference in their means
// (1 where either has fewer than 2 points or both have no spread).
double welch_p_value(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace abench
