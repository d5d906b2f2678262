#include "src/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "src/statistics.h"

namespace abench {
namespace {

// Uniform index below n from mt19937_64, whose output the standard fixes (unlike
// std::uniform_int_distribution's), so intervals are the same on every platform.
std::size_t index_below(std::mt19937_64& rng, std::size_t n) { return static_cast<std::size_t>(rng() % n); }

double resampled_statistic(const ProcessSamples& processes, std::mt19937_64& rng,
                           std::vector<double>& medians, std::vector<double>& samples) {
  medians.clear();
  for (std::size_t p = 0; p < processes.size(); ++p) {
    const auto& chosen = processes[index_below(rng, processes.size())];
    samples.clear();
    for (std::size_t s = 0; s < chosen.size(); ++s) samples.push_back(chosen[index_below(rng, chosen.size())]);
    medians.push_back(median(samples));
  }
  return median(medians);
}

double percentile(std::vector<double>& sorted, double q) {
  // Linear interpolation between closest ranks.
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const auto upper = std::min(lower + 1, sorted.size() - 1);
  return sorted[lower] + (position - static_cast<double>(lower)) * (sorted[upper] - sorted[lower]);
}

}  // namespace

double median_of_medians(const ProcessSamples& processes) {
  std::vector<double> medians;
  for (const auto& samples : processes) medians.push_back(median(samples));
  return median(medians);
}

RatioInterval bootstrap_ratio(const ProcessSamples& before, const ProcessSamples& after,
                              double confidence, int resamples, std::uint64_t seed) {
  for (const auto* side : {&before, &after}) {
    if (side->empty()) throw std::invalid_argument("bootstrap of a side with no process");
    for (const auto& samples : *side)
      if (samples.empty()) throw std::invalid_argument("bootstrap of a process with no sample");
  }
  RatioInterval result;
  result.ratio = median_of_medians(after) / median_of_medians(before);
  std::mt19937_64 rng(seed);
  std::vector<double> ratios, medians, samples;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    const double b = resampled_statistic(before, rng, medians, samples);
    const double a = resampled_statistic(after, rng, medians, samples);
    ratios.push_back(a / b);
  }
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  result.low = percentile(ratios, tail);
  result.high = percentile(ratios, 1 - tail);
  return result;
}

}  // namespace abench
