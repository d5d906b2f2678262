// Exact, distribution-free confidence intervals for a shift, from ranks (docs/statistics.md):
// the Wilcoxon signed-rank interval for paired differences and the Wilcoxon rank-sum
// (Mann-Whitney) interval for two independent samples, each around its Hodges-Lehmann
// estimate. Exact for small samples, where abench lives (6 rounds, 4 processes a side), so
// the coverage printed is the coverage had, not an asymptotic promise.
#pragma once

#include <vector>

namespace abench {

struct ShiftInterval {
  double estimate = 0;       // Hodges-Lehmann: median of Walsh averages / of pairwise differences
  double low = 0, high = 0;  // order statistics of the same
  double coverage = 0;       // exact probability that such an interval covers the true shift
  bool reached = false;      // coverage >= the confidence asked for; else [low, high] is the
                             // widest interval there is (min to max) and coverage falls short
};

// Paired differences, one per round; valid when they are independent and symmetric about
// the shift. Precondition: not empty.
ShiftInterval signed_rank_interval(std::vector<double> differences, double confidence);

// The median of paired differences: the sign test's interval, order statistics of the
// differences themselves; valid when they are independent with that median, whatever
// their distribution (no symmetry). Its estimate is their median. Precondition: not empty.
ShiftInterval sign_interval(std::vector<double> differences, double confidence);

// The shift of `after` against `before` (after - before); valid when the two samples are
// independent and differ by a shift. Precondition: neither empty.
ShiftInterval rank_sum_interval(const std::vector<double>& before, const std::vector<double>& after,
                                double confidence);

// The fewest rounds (paired) and processes a side (unpaired) whose interval can reach it.
int min_rounds_for(double confidence);
int min_processes_for(double confidence);

// Null distributions: P(T+ <= t) for n differences; P(U <= u) for samples of m and n.
// Exact up to 60 differences and 400 pairs, a normal approximation with continuity
// correction beyond.
double signed_rank_cdf(int n, long t);
double binomial_half_cdf(int n, long k);  // P(B <= k), B ~ Binomial(n, 1/2)
double rank_sum_cdf(int m, int n, long u);

}  // namespace abench
