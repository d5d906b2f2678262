// Where each series changed (docs/history.md, "Change points"): the change points of its
// figures by E-divisive means with Welch's t-test (src/stats/change_points.h), no step below
// the cell's own detectable change; and where the abench that measured it changed, a
// boundary of its own, never reported as the library's change.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "src/stats/change_points.h"
#include "src/store/history_series.h"

namespace abench {

struct SeriesChange {
  const Series* series = nullptr;
  std::size_t index = 0;                // the first point after the change
  std::string commit, previous_commit;  // the first commit after it, the last before
  double before = 0, after = 0;         // the segments' mean figures
  double change = 0;                    // after / before - 1 (positive: slower)
  double p_value = 1;                   // Welch's t-test of the two segments (abench's boundaries: none)
  double detectable = 0;                // the smallest step the cell resolves
  std::size_t points_before = 0, points_after = 0;
  bool by_abench = false;  // the measuring abench changed here
  // Where it did: the timed loops before and after (equal when only the rest of abench changed).
  std::string loop_before, loop_after;
};

// The cell's detectable change: the median over its points of the process range over the
// figure, at least `floor`.
double detectable_change(const Series& series, double floor);

// Every series' changes, regressions (the largest first) before improvements.
std::vector<SeriesChange> find_changes(const std::vector<Series>& all, const ChangePointRule& rule);

}  // namespace abench
