#include "src/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <map>
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

namespace {

void check_sides(const ProcessSamples& before, const ProcessSamples& after) {
  for (const auto* side : {&before, &after}) {
    if (side->empty()) throw std::invalid_argument("bootstrap of a side with no process");
    for (const auto& samples : *side)
      if (samples.empty()) throw std::invalid_argument("bootstrap of a process with no sample");
  }
}

double resampled_median(const std::vector<double>& samples, std::mt19937_64& rng, std::vector<double>& scratch) {
  scratch.clear();
  for (std::size_t s = 0; s < samples.size(); ++s) scratch.push_back(samples[index_below(rng, samples.size())]);
  return median(scratch);
}

// The median over rounds of each round's ratio of process medians.
double paired_ratio(const ProcessSamples& before, const ProcessSamples& after) {
  std::vector<double> round_ratios;
  for (std::size_t i = 0; i < before.size(); ++i) round_ratios.push_back(median(after[i]) / median(before[i]));
  return median(round_ratios);
}

void set_percentiles(RatioInterval& result, std::vector<double>& ratios, double confidence) {
  std::sort(ratios.begin(), ratios.end());
  const double tail = (1 - confidence) / 2;
  result.low = percentile(ratios, tail);
  result.high = percentile(ratios, 1 - tail);
}

}  // namespace

RatioInterval paired_bootstrap_ratio(const ProcessSamples& before, const ProcessSamples& after,
                                     double confidence, int resamples, std::uint64_t seed) {
  check_sides(before, after);
  if (before.size() != after.size())
    throw std::invalid_argument("paired bootstrap of sides with different numbers of processes");
  const std::size_t rounds = before.size();
  RatioInterval result;
  result.paired = true;
  result.ratio = paired_ratio(before, after);
  std::vector<double> round_ratios;
  std::mt19937_64 rng(seed);
  std::vector<double> ratios, scratch;
  ratios.reserve(static_cast<std::size_t>(resamples));
  for (int r = 0; r < resamples; ++r) {
    round_ratios.clear();
    for (std::size_t i = 0; i < rounds; ++i) {
      const std::size_t round = index_below(rng, rounds);
      const double b = resampled_median(before[round], rng, scratch);
      round_ratios.push_back(resampled_median(after[round], rng, scratch) / b);
    }
    ratios.push_back(median(round_ratios));
  }
  set_percentiles(result, ratios, confidence);
  return result;
}

RatioInterval bootstrap_ratio(const ProcessSamples& before, const ProcessSamples& after,
                              double confidence, int resamples, std::uint64_t seed) {
  check_sides(before, after);
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
  set_percentiles(result, ratios, confidence);
  return result;
}

namespace {

// The two sides in round order, when both ran exactly once in the same rounds (at least two).
bool pair_by_round(const ProcessSamples& before, const std::vector<int>& before_rounds, const ProcessSamples& after,
                   const std::vector<int>& after_rounds, ProcessSamples& paired_before, ProcessSamples& paired_after) {
  std::map<int, std::size_t> before_of_round, after_of_round;
  for (std::size_t i = 0; i < before_rounds.size(); ++i) before_of_round[before_rounds[i]] = i;
  for (std::size_t i = 0; i < after_rounds.size(); ++i) after_of_round[after_rounds[i]] = i;
  const bool pairable = before_rounds.size() == before.size() && after_rounds.size() == after.size() &&
                        before_of_round.size() == before.size() && after_of_round.size() == after.size() &&
                        before.size() == after.size() && before.size() >= 2 &&
                        std::equal(before_of_round.begin(), before_of_round.end(), after_of_round.begin(),
                                   [](const auto& b, const auto& a) { return b.first == a.first; });
  if (!pairable) return false;
  for (const auto& [round, index] : before_of_round) {
    paired_before.push_back(before[index]);
    paired_after.push_back(after[after_of_round.at(round)]);
  }
  return true;
}

}  // namespace

RatioInterval interval_of_change(const ProcessSamples& before, const std::vector<int>& before_rounds,
                                 const ProcessSamples& after, const std::vector<int>& after_rounds,
                                 double confidence, int resamples, std::uint64_t seed) {
  ProcessSamples b, a;
  if (!pair_by_round(before, before_rounds, after, after_rounds, b, a))
    return bootstrap_ratio(before, after, confidence, resamples, seed);
  return paired_bootstrap_ratio(b, a, confidence, resamples, seed);
}

double ratio_of_change(const ProcessSamples& before, const std::vector<int>& before_rounds,
                       const ProcessSamples& after, const std::vector<int>& after_rounds) {
  check_sides(before, after);
  ProcessSamples b, a;
  if (!pair_by_round(before, before_rounds, after, after_rounds, b, a))
    return median_of_medians(after) / median_of_medians(before);
  return paired_ratio(b, a);
}

}  // namespace abench
