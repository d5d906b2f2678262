#include "src/stats/rank_intervals.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "src/stats/statistics.h"

namespace abench {
namespace {

constexpr int kMostRounds = 1000;        // --processes allows no more
constexpr long kExactRankSumLimit = 400;  // m * n pairs

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The interval between the k-th smallest and k-th largest of `sorted`, for the largest k
// whose coverage 1 - 2 P(statistic <= k - 1) still reaches the confidence.
template <class Cdf>
ShiftInterval order_statistic_interval(const std::vector<double>& sorted, double confidence, Cdf cdf) {
  ShiftInterval result;
  result.estimate = median(sorted);
  const auto count = static_cast<long>(sorted.size());
  long k = 1;
  result.coverage = 1 - 2 * cdf(0);
  result.reached = result.coverage >= confidence - 1e-12;
  while (result.reached && k + 1 <= (count + 1) / 2) {
    const double wider = 1 - 2 * cdf(k);  // coverage of the interval at k + 1
    if (wider < confidence - 1e-12) break;
    ++k;
    result.coverage = wider;
  }
  result.low = sorted[static_cast<std::size_t>(k - 1)];
  result.high = sorted[static_cast<std::size_t>(count - k)];
  return result;
}

}  // namespace

double rank_sum_cdf(int m, int n, long u) {
  if (m < 1 || n < 1) throw std::invalid_argument("rank-sum distribution of an empty sample");
  const long most = static_cast<long>(m) * n;
  if (u < 0) return 0;
  if (u >= most) return 1;
  if (most > kExactRankSumLimit) {
    const double mean = static_cast<double>(most) / 2;
    const double sd = std::sqrt(static_cast<double>(most) * (m + n + 1) / 12);
    return normal_cdf((static_cast<double>(u) + 0.5 - mean) / sd);
  }
  // p[i][j][u]: P(U = u) for samples of i and j, from the last element's two possibilities
  // (the largest of all i + j values is a `before` with probability i / (i + j)).
  std::vector<std::vector<std::vector<double>>> p(static_cast<std::size_t>(m) + 1,
                                                  std::vector<std::vector<double>>(static_cast<std::size_t>(n) + 1));
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j <= n; ++j) {
      auto& cell = p[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      cell.assign(static_cast<std::size_t>(i * j) + 1, 0.0);
      if (i == 0 || j == 0) {
        cell[0] = 1;
        continue;
      }
      const double from_before = static_cast<double>(i) / (i + j), from_after = static_cast<double>(j) / (i + j);
      const auto& fewer_before = p[static_cast<std::size_t>(i - 1)][static_cast<std::size_t>(j)];
      const auto& fewer_after = p[static_cast<std::size_t>(i)][static_cast<std::size_t>(j - 1)];
      for (std::size_t v = 0; v < cell.size(); ++v) {
        // The largest is a `before`: it exceeds all j `after` values, adding j to U.
        if (v >= static_cast<std::size_t>(j) && v - static_cast<std::size_t>(j) < fewer_before.size())
          cell[v] += from_before * fewer_before[v - static_cast<std::size_t>(j)];
        if (v < fewer_after.size()) cell[v] += from_after * fewer_after[v];
      }
    }
  const auto& dist = p[static_cast<std::size_t>(m)][static_cast<std::size_t>(n)];
  double sum = 0;
  for (long v = 0; v <= u; ++v) sum += dist[static_cast<std::size_t>(v)];
  return std::min(sum, 1.0);
}

double binomial_half_cdf(int n, long k) {
  if (n < 1) throw std::invalid_argument("sign distribution of no differences");
  if (k < 0) return 0;
  if (k >= n) return 1;
  // Sum of C(n, i) / 2^n in logs, exact enough for any n abench runs.
  double sum = 0;
  for (long i = 0; i <= k; ++i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return std::min(sum, 1.0);
}

ShiftInterval sign_interval(std::vector<double> d, double confidence) {
  if (d.empty()) throw std::invalid_argument("sign interval of no differences");
  std::sort(d.begin(), d.end());
  const int n = static_cast<int>(d.size());
  return order_statistic_interval(d, confidence, [n](long k) { return binomial_half_cdf(n, k); });
}

ShiftInterval rank_sum_interval(const std::vector<double>& before, const std::vector<double>& after,
                                double confidence) {
  if (before.empty() || after.empty()) throw std::invalid_argument("rank-sum interval of an empty sample");
  std::vector<double> differences;
  differences.reserve(before.size() * after.size());
  for (double b : before)
    for (double a : after) differences.push_back(a - b);
  std::sort(differences.begin(), differences.end());
  const int m = static_cast<int>(before.size()), n = static_cast<int>(after.size());
  return order_statistic_interval(differences, confidence, [m, n](long u) { return rank_sum_cdf(m, n, u); });
}

int min_rounds_for(double confidence) {
  for (int n = 1; n < kMostRounds; ++n)
    if (1 - 2 * binomial_half_cdf(n, 0) >= confidence - 1e-12) return n;
  return kMostRounds;
}

int min_processes_for(double confidence) {
  for (int n = 1; n * n <= kExactRankSumLimit; ++n)
    if (1 - 2 * rank_sum_cdf(n, n, 0) >= confidence - 1e-12) return n;
  return 20;
}

}  // namespace abench
