#include "src/stats/change_points.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/students_t.hpp>

namespace abench {
namespace {

double mean_of(const std::vector<double>& v, std::size_t from, std::size_t to) {
  return std::accumulate(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to), 0.0) /
         static_cast<double>(to - from);
}

// The split of [from, to) with the largest energy statistic, each side at least `min` long:
// Q(t) = m k / (m + k) (2/(m k) B - 2/(m (m-1)) L - 2/(k (k-1)) R), with B the sum of
// |x_i - x_j| across the split and L, R those within each side, kept as running sums while
// t moves right (O(n^2) for a segment of n).
std::size_t best_split(const std::vector<double>& x, std::size_t from, std::size_t to, std::size_t min) {
  const std::size_t n = to - from;
  auto distance_to_range = [&](std::size_t i, std::size_t a, std::size_t b) {
    double sum = 0;
    for (std::size_t j = a; j < b; ++j) sum += std::fabs(x[i] - x[j]);
    return sum;
  };
  // t = from + 1: left holds x[from].
  double left = 0, right = 0, across = distance_to_range(from, from + 1, to);
  for (std::size_t i = from + 1; i < to; ++i) right += distance_to_range(i, i + 1, to);
  double best_q = -1;
  std::size_t best = 0;
  for (std::size_t t = from + 1; t < to; ++t) {
    const double m = static_cast<double>(t - from), k = static_cast<double>(to - t);
    if (t - from >= min && to - t >= min) {
      const double within_left = m > 1 ? 2 * left / (m * (m - 1)) : 0;
      const double within_right = k > 1 ? 2 * right / (k * (k - 1)) : 0;
      const double q = m * k / static_cast<double>(n) * (2 * across / (m * k) - within_left - within_right);
      if (q > best_q) best_q = q, best = t;
    }
    // x[t] moves from the right side to the left.
    const double to_left = distance_to_range(t, from, t), to_right = distance_to_range(t, t + 1, to);
    left += to_left;
    right -= to_right;
    across += to_right - to_left;
  }
  return best;
}

// The split tested is the best of every place the segment could split at, so its p-value is
// the smallest of many: alpha is shared among them (Bonferroni), or a flat series of 50
// points would show a change in 5% of series at alpha 0.001 (docs/statistics.md).
double corrected_alpha(const ChangePointRule& rule, std::size_t length) {
  const std::size_t places = length + 1 - 2 * rule.min_segment;
  return rule.alpha / static_cast<double>(std::max<std::size_t>(places, 1));
}

void split(const std::vector<double>& logs, std::size_t from, std::size_t to, const ChangePointRule& rule,
           std::vector<ChangePoint>& found) {
  if (to - from < 2 * rule.min_segment) return;
  const std::size_t t = best_split(logs, from, to, rule.min_segment);
  if (t == 0) return;
  const std::vector<double> a(logs.begin() + static_cast<long>(from), logs.begin() + static_cast<long>(t));
  const std::vector<double> b(logs.begin() + static_cast<long>(t), logs.begin() + static_cast<long>(to));
  const double p = welch_p_value(a, b);
  const double step = std::exp(mean_of(logs, t, to) - mean_of(logs, from, t)) - 1;
  if (p >= corrected_alpha(rule, to - from) || std::fabs(step) < rule.min_step) return;
  found.push_back({t, 0, 0, step, p});
  split(logs, from, t, rule, found);
  split(logs, t, to, rule, found);
}

}  // namespace

double welch_p_value(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() < 2 || b.size() < 2) return 1;
  auto variance = [](const std::vector<double>& v, double mean) {
    double sum = 0;
    for (double x : v) sum += (x - mean) * (x - mean);
    return sum / static_cast<double>(v.size() - 1);
  };
  const double ma = mean_of(a, 0, a.size()), mb = mean_of(b, 0, b.size());
  const double va = variance(a, ma) / static_cast<double>(a.size()),
               vb = variance(b, mb) / static_cast<double>(b.size());
  if (va + vb <= 0) return ma == mb ? 1 : 0;
  const double t = (mb - ma) / std::sqrt(va + vb);
  const double df = (va + vb) * (va + vb) /
                    (va * va / static_cast<double>(a.size() - 1) + vb * vb / static_cast<double>(b.size() - 1));
  const boost::math::students_t distribution(df);
  return 2 * boost::math::cdf(boost::math::complement(distribution, std::fabs(t)));
}

std::vector<ChangePoint> change_points(const std::vector<double>& series, const ChangePointRule& rule) {
  std::vector<double> logs;
  for (double x : series) logs.push_back(std::log(x));
  std::vector<ChangePoint> found;
  split(logs, 0, logs.size(), rule, found);
  std::sort(found.begin(), found.end(), [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // Each change judged again between its final neighbours (a segment split later is shorter
  // than the one it was found in), the weakest that no longer passes dropped, until all pass.
  for (;;) {
    std::size_t weakest = found.size();
    for (std::size_t c = 0; c < found.size(); ++c) {
      const std::size_t from = c == 0 ? 0 : found[c - 1].index, t = found[c].index;
      const std::size_t to = c + 1 == found.size() ? logs.size() : found[c + 1].index;
      const std::vector<double> a(logs.begin() + static_cast<long>(from), logs.begin() + static_cast<long>(t));
      const std::vector<double> b(logs.begin() + static_cast<long>(t), logs.begin() + static_cast<long>(to));
      ChangePoint& point = found[c];
      point.before = std::exp(mean_of(logs, from, t));
      point.after = std::exp(mean_of(logs, t, to));
      point.step = point.after / point.before - 1;
      point.p_value = welch_p_value(a, b);
      const bool passes = point.p_value < corrected_alpha(rule, to - from) && std::fabs(point.step) >= rule.min_step;
      if (!passes && (weakest == found.size() || point.p_value > found[weakest].p_value)) weakest = c;
    }
    if (weakest == found.size()) return found;
    found.erase(found.begin() + static_cast<long>(weakest));
  }
}

}  // namespace abench
