#include "src/stats/rank_intervals.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "src/stats/statistics.h"

namespace abench {
namespace {

constexpr int kMostRounds = 1000;         // --processes allows no more
constexpr long kExactRankSumLimit = 400;  // m * n pairs

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// The interval between the k-th smallest and k-th largest of `sorted`, for the largest k
// whose coverage 1 - 2 P(statistic <= k - 1) still reaches the confidence. `cumulative[v]`
// is P(statistic <= v), computed once per interval.
ShiftInterval order_statistic_interval(const std::vector<double>& sorted, double confidence,
                                       const std::vector<double>& cumulative) {
  ShiftInterval result;
  result.estimate = median(sorted);
  const auto count = static_cast<long>(sorted.size());
  long k = 1;
  result.coverage = 1 - 2 * cumulative[0];
  result.reached = result.coverage >= confidence - 1e-12;
  while (result.reached && k + 1 <= (count + 1) / 2) {
    const double wider = 1 - 2 * cumulative[static_cast<std::size_t>(k)];  // coverage at k + 1
    if (wider < confidence - 1e-12) break;
    ++k;
    result.coverage = wider;
  }
  result.low = sorted[static_cast<std::size_t>(k - 1)];
  result.high = sorted[static_cast<std::size_t>(count - k)];
  return result;
}

// P(B <= k) for k = 0..n, B ~ Binomial(n, 1/2): C(n, i) / 2^n in logs, exact enough for any
// n abench runs.
std::vector<double> binomial_half_cumulative(int n) {
  if (n < 1) throw std::invalid_argument("sign distribution of no differences");
  std::vector<double> cumulative(static_cast<std::size_t>(n) + 1);
  double sum = 0;
  for (int i = 0; i <= n; ++i) {
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
    cumulative[static_cast<std::size_t>(i)] = std::min(sum, 1.0);
  }
  cumulative.back() = 1;
  return cumulative;
}

// P(U <= u) for u = 0..m*n: exact up to kExactRankSumLimit pairs, normal beyond.
std::vector<double> rank_sum_cumulative(int m, int n) {
  if (m < 1 || n < 1) throw std::invalid_argument("rank-sum distribution of an empty sample");
  const long most = static_cast<long>(m) * n;
  std::vector<double> cumulative(static_cast<std::size_t>(most) + 1);
  if (most > kExactRankSumLimit) {
    const double mean = static_cast<double>(most) / 2;
    const double sd = std::sqrt(static_cast<double>(most) * (m + n + 1) / 12);
    for (long u = 0; u <= most; ++u)
      cumulative[static_cast<std::size_t>(u)] = normal_cdf((static_cast<double>(u) + 0.5 - mean) / sd);
    cumulative.back() = 1;
    return cumulative;
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
  double sum = 0;
  const auto& dist = p[static_cast<std::size_t>(m)][static_cast<std::size_t>(n)];
  for (std::size_t v = 0; v < dist.size(); ++v) cumulative[v] = std::min(sum += dist[v], 1.0);
  return cumulative;
}

double at(const std::vector<double>& cumulative, long v) {
  if (v < 0) return 0;
  if (v >= static_cast<long>(cumulative.size()) - 1) return 1;
  return cumulative[static_cast<std::size_t>(v)];
}

}  // namespace

double rank_sum_cdf(int m, int n, long u) { return at(rank_sum_cumulative(m, n), u); }

double binomial_half_cdf(int n, long k) { return at(binomial_half_cumulative(n), k); }

ShiftInterval sign_interval(std::vector<double> d, double confidence) {
  if (d.empty()) throw std::invalid_argument("sign interval of no differences");
  std::sort(d.begin(), d.end());
  return order_statistic_interval(d, confidence, binomial_half_cumulative(static_cast<int>(d.size())));
}

ShiftInterval rank_sum_interval(const std::vector<double>& before, const std::vector<double>& after,
                                double confidence) {
  if (before.empty() || after.empty()) throw std::invalid_argument("rank-sum interval of an empty sample");
  std::vector<double> differences;
  differences.reserve(before.size() * after.size());
  for (double b : before)
    for (double a : after) differences.push_back(a - b);
  std::sort(differences.begin(), differences.end());
  return order_statistic_interval(differences, confidence,
                                  rank_sum_cumulative(static_cast<int>(before.size()), static_cast<int>(after.size())));
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
