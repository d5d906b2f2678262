// Exact, distribution-free confidence intervals for a shift (docs/statistics.md): the sign
// test's interval for the median of paired differences, and the Wilcoxon rank-sum
// (Mann-Whitney) interval for two independent samples around its Hodges-Lehmann estimate.
// Exact for small samples, where abench lives (6 rounds, 4 processes a side), so the
// coverage printed is the coverage had, not an asymptotic promise.
#pragma once

#include <vector>

namespace abench {

struct ShiftInterval {
  double estimate = 0;       // the median of the differences (paired) / of all pairwise differences
  double low = 0, high = 0;  // order statistics of the same
  double coverage = 0;       // exact probability that such an interval covers the true shift
  bool reached = false;      // coverage >= the confidence asked for; else [low, high] is the
                             // widest interval there is (min to max) and coverage falls short
};

// The median of paired differences: the sign test's interval, order statistics of the
// differences themselves; valid when they are independent with that median, whatever
// their distribution (no symmetry). Its estimate is their median. Precondition: not empty.
ShiftInterval sign_interval(std::vector<double> differences, double confidence);

// The shift of `after` against `before` (after - before); valid when the two samples are
// independent and differ by a shift. Precondition: neither empty.
ShiftInterval rank_sum_interval(const std::vector<double>& before, const std::vector<double>& after, double confidence);

// The fewest rounds (paired) and processes a side (unpaired) whose interval can reach it.
int min_rounds_for(double confidence);
int min_processes_for(double confidence);

// Null distributions: P(B <= k), B ~ Binomial(n, 1/2), the number of differences below the
// median; P(U <= u) for samples of m and n, exact up to 400 pairs and by the normal
// approximation with continuity correction beyond.
double binomial_half_cdf(int n, long k);
double rank_sum_cdf(int m, int n, long u);

}  // namespace abench
