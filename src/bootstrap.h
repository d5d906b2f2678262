// Confidence interval of a ratio of medians with the process as the unit of replication
// (docs/statistics.md): a two-level (hierarchical) bootstrap that resamples processes,
// then samples within each resampled process, so the interval includes the variation
// between processes, not only the noise within one.
#pragma once

#include <cstdint>
#include <vector>

namespace abench {

// One side of a comparison: the samples of each process.
using ProcessSamples = std::vector<std::vector<double>>;

// The statistic: median over processes of each process's median sample.
double median_of_medians(const ProcessSamples& processes);

struct RatioInterval {
  double ratio = 0;        // after / before, on the data as measured
  double low = 0, high = 0;  // percentile interval of the resampled ratios
  bool paired = false;     // from paired_bootstrap_ratio
};

// Deterministic: the same data, confidence, resamples and seed give the same interval.
RatioInterval bootstrap_ratio(const ProcessSamples& before, const ProcessSamples& after,
                              double confidence, int resamples, std::uint64_t seed);

// The same for an interleaved run, whose processes come in pairs: before[i] and after[i]
// ran back to back in one round, with one cell order. The statistic is the median over
// rounds of each round's ratio of process medians, and the bootstrap resamples rounds (then
// samples within each process), so what a round shares (the machine's state at that
// moment) cancels out of every ratio. Throws std::invalid_argument unless the sides have
// the same number of processes.
RatioInterval paired_bootstrap_ratio(const ProcessSamples& before, const ProcessSamples& after,
                                     double confidence, int resamples, std::uint64_t seed);

// interval_of_change's ratio alone, without resampling (calibrate's A/A changes).
double ratio_of_change(const ProcessSamples& before, const std::vector<int>& before_rounds,
                       const ProcessSamples& after, const std::vector<int>& after_rounds);

// Two sides of one interleaved run, each process with its round: paired by round when
// both sides ran exactly once in the same rounds (paired_bootstrap_ratio), else
// bootstrap_ratio.
RatioInterval interval_of_change(const ProcessSamples& before, const std::vector<int>& before_rounds,
                                 const ProcessSamples& after, const std::vector<int>& after_rounds,
                                 double confidence, int resamples, std::uint64_t seed);

}  // namespace abench
