// Whether a cell's figure moves with the layout its processes ran at (--layouts K: the K
// layouts taken in turn round after round, so every layout has processes from the whole run
// and a slow spell of the machine falls on all of them alike). The spread between the
// layouts is tested against the spread within them, by ranks: the Kruskal-Wallis statistic,
// its p-value from permutations of the processes' layouts, so one wild process moves it by a
// rank and no distribution is assumed (docs/statistics.md,
// "Cells that move with layout").
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace abench {

// The p-value a layout-sensitive cell must reach: it is a warning on a whole matrix's cells,
// so rare by chance (checked by simulation in tests/layout_spread_test.cc).
inline constexpr double kLayoutSensitiveLevel = 0.001;

struct LayoutSpread {
  int layouts = 0;     // layouts with at least two processes (the others are left out)
  double range = 0;    // the highest layout's median figure / the lowest's - 1
  double p_value = 1;  // the chance of a spread between layouts this large were layout no matter
  // Moves with layout: significant at kLayoutSensitiveLevel and wider than `margin` (a change
  // that size in this cell could be layout alone).
  bool sensitive(double margin) const { return p_value <= kLayoutSensitiveLevel && range >= margin; }
};

// The rounds each of K layouts needs (at least 3) for the test to reach half its level when
// one layout alone moves the figure, the others alike: found by running the test on that case.
int rounds_per_layout(int layouts);

// figures[i] was measured at layout[i] (>= 0). None when fewer than two layouts have two
// processes each. `permutations` random relabellings, drawn from a fixed seed: the same
// figures give the same p-value wherever they are read.
std::optional<LayoutSpread> layout_spread(const std::vector<double>& figures, const std::vector<int>& layout,
                                          int permutations = 20000);

}  // namespace abench
