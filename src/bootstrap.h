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
};

// Deterministic: the same data, confidence, resamples and seed give the same interval.
RatioInterval bootstrap_ratio(const ProcessSamples& before, const ProcessSamples& after,
                              double confidence, int resamples, std::uint64_t seed);

}  // namespace abench
