#include "src/stats/layout_spread.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "src/stats/statistics.h"

namespace abench {
namespace {

// Mid-ranks (ties share the mean of their ranks).
std::vector<double> ranks_of(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = (static_cast<double>(i + j) / 2) + 1;
    i = j + 1;
  }
  return ranks;
}

// The part of Kruskal-Wallis' H that a relabelling changes: the sum over layouts of R^2 / n
// (R a layout's sum of ranks). It grows with every layout whose ranks lie apart, so several
// layouts at two or three levels (what physical placement gives, docs/measurement.md) count.
double between_layouts(const std::vector<double>& ranks, const std::vector<int>& group, const std::vector<int>& sizes) {
  std::vector<double> sums(sizes.size(), 0.0);
  for (std::size_t i = 0; i < ranks.size(); ++i) sums[static_cast<std::size_t>(group[i])] += ranks[i];
  double h = 0;
  for (std::size_t g = 0; g < sums.size(); ++g) h += sums[g] * sums[g] / sizes[g];
  return h;
}

}  // namespace

int rounds_per_layout(int layouts) {
  // The weakest case that must still be found: one layout apart, the others alike (their
  // figures interleaved). The fewest rounds a layout at which its p-value is half the level.
  for (int n = 3;; ++n) {
    std::vector<double> figures;
    std::vector<int> layout;
    for (int i = 0; i < layouts * n; ++i) {
      figures.push_back((i % layouts == 0 ? 2.0 : 1.0) + 1e-3 * i);
      layout.push_back(i % layouts);
    }
    const auto spread = layout_spread(figures, layout);
    if (!spread || spread->p_value <= kLayoutSensitiveLevel / 2) return n;
  }
}

std::optional<LayoutSpread> layout_spread(const std::vector<double>& figures, const std::vector<int>& layout,
                                          int permutations) {
  std::map<int, std::vector<double>> by_layout;
  for (std::size_t i = 0; i < figures.size() && i < layout.size(); ++i)
    if (layout[i] >= 0) by_layout[layout[i]].push_back(figures[i]);
  std::vector<double> kept;
  std::vector<int> group, sizes;
  std::vector<double> medians;
  for (const auto& [index, values] : by_layout) {
    if (values.size() < 2) continue;
    for (double v : values) kept.push_back(v), group.push_back(static_cast<int>(sizes.size()));
    sizes.push_back(static_cast<int>(values.size()));
    medians.push_back(median(values));
  }
  if (sizes.size() < 2) return std::nullopt;

  LayoutSpread spread;
  spread.layouts = static_cast<int>(sizes.size());
  spread.range = maximum(medians) / minimum(medians) - 1;
  const std::vector<double> ranks = ranks_of(kept);
  const double observed = between_layouts(ranks, group, sizes);
  std::mt19937_64 draw(0x1a9007);  // fixed: a file's p-value is the same every time it is read
  std::vector<int> shuffled = group;
  int as_large = 0;
  for (int i = 0; i < permutations; ++i) {
    std::shuffle(shuffled.begin(), shuffled.end(), draw);
    // Sums of ranks are multiples of 0.5: a tolerance keeps ties with the observed as ties.
    if (between_layouts(ranks, shuffled, sizes) >= observed - 1e-9 * observed) ++as_large;
  }
  spread.p_value = (as_large + 1.0) / (permutations + 1.0);
  return spread;
}

}  // namespace abench
