// The sampler: how many iterations make a batch, when a cell is warm, and the timed batches.
//
// Warm-up: find the count for a probe batch of min_batch_ns / kProbeDivisor (long enough
// to time: the clock reads in tens of ns), then repeat batches at that count until two in
// a row agree per iteration within kWarmTolerance: the caches, the allocator's state and
// the pages the cell touches have settled (or kMaxWarmBatches say it never will). The count
// doubles while a batch is too short to predict from (under a kTimeableDivisor-th of the
// probe), then jumps to the count predicted to last kProbeMargin probes: doubling all the
// way had spent about two probes before the first batch that reached one.
// Warm-up batches are never samples.
// Timed: from the last warm batch's time per iteration, the count for a batch of
// min_batch_ns is predicted (as Google Benchmark predicts its next count); sample k runs
// that count stretched by a factor 1 + stretch_max x (u_k - 1/2), u_k in [0, 1) drawn from
// stretch_seed, so that batch lengths do not fall into lockstep with periodic noise
// (nanobench stretches by 0-20%). Centred on the batch, so that S samples take S batches'
// time. With follow_rate (no partner whose batches must match) each sample's count is
// predicted again from the median time per iteration of the samples before it: a short
// warm-up batch runs slower per iteration than a whole one (docs/decisions.md, "Batch lengths").
// With fixed_iterations (compare: both sides of a cell do the same work; a paced worker
// may be told the count when its warm-up starts) the samples run that count, stretched by
// the same factors on both sides (one stretch seed per pair).
// Long iterations: where one iteration alone outlasts the batch, no warm-up repeat begins once
// the warm-up has taken kWarmupBudget batches' time, and a process without a partner takes as
// many samples as fill samples x min_batch_ns, at least kMinSamples, so that such a cell takes
// its share of the run (docs/decisions.md, "Long iterations"). Without a partner, where
// the verification just before (one iteration, untimed: verified_ns) took that budget, it
// was the warm-up, and the first sample's time plans the samples.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

namespace abench {

inline constexpr std::uint64_t kProbeDivisor = 16;
inline constexpr std::uint64_t kTimeableDivisor = 16;  // a batch of probe / this predicts the probe's count
inline constexpr double kProbeMargin = 1.2;            // the predicted probe's length, in probes
inline constexpr double kWarmTolerance = 0.03;
inline constexpr int kMaxWarmBatches = 8;  // at the probe's count, after the doubling
inline constexpr double kDefaultStretch = 0.08;
inline constexpr std::uint64_t kWarmupBudget = 3;  // min_batch_ns's worth of warm-up, after which no repeat starts
inline constexpr double kLongBatch = 1.2;          // a predicted batch this many times min_batch_ns is long
inline constexpr int kMinSamples = 3;              // the fewest samples a long batch's process takes

struct SamplerConfig {
  std::uint64_t min_batch_ns = 25'000'000;
  int samples = 11;
  std::uint64_t fixed_iterations = 0;         // 0: predicted
  std::uint64_t max_iterations = 1ull << 36;  // guards a batch that never gets long
  double stretch_max = kDefaultStretch;       // sample k runs within +-half of this of the count
  std::uint64_t stretch_seed = 0;
  bool follow_rate = false;  // predict each sample's count again (no partner)
  // How long verification (the cell's buffers built once and checked, untimed) took just
  // before: with follow_rate, where it took the warm-up's whole budget it was the warm-up.
  std::uint64_t verified_ns = 0;
  // Called once warm-up has fixed the batch, before the first sample, with how long a
  // timed batch is expected to take at most: the worker tells abench how long the samples
  // will take, so a hang is found in seconds (docs/protocol.md, "warm"). Not part of the request.
  void (*on_warmed_up)(std::uint64_t batch_ns, std::uint64_t iterations, int samples) = nullptr;
  // A paced worker (the two sides of a compare's cell alternating batch by batch,
  // docs/protocol.md "Paced pairs") waits before its warm-up and before each sample until
  // abench says go. wait_for_warmup returns the iteration count to sample at (0: as
  // configured); after_sample tells abench a sample is done. Neither may allocate: the
  // allocator under test must serve nothing between batches but the batches.
  std::uint64_t (*wait_for_warmup)() = nullptr;
  void (*wait_for_sample)() = nullptr;
  void (*after_sample)() = nullptr;
};

struct SampleRun {
  std::uint64_t iterations = 0;  // the count before stretching (both sides of a pair: the same)
  int warmup_batches = 0;
  bool warm = false;                            // two warm-up batches agreed (else the cap ended warm-up)
  std::vector<std::uint64_t> batch_ns;          // one per sample
  std::vector<std::uint64_t> batch_iterations;  // one per sample: iterations stretched
};

// Sample k's stretch: 1 + stretch_max x (u - 1/2), u in [0, 1) from (seed, k) by SplitMix64.
inline double batch_stretch(std::uint64_t seed, int k, double stretch_max) {
  std::uint64_t x = seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(k + 1);
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return 1 + stretch_max * (static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5);
}

// The samples a process without a partner takes, given how long one batch is predicted to
// last: config.samples, or where that batch is long (one iteration outlasts min_batch_ns) as
// many as fill config.samples x min_batch_ns, at least kMinSamples. A partner's samples must
// match its pair's one for one, so a paired process always takes config.samples.
inline int planned_samples(const SamplerConfig& config, double batch_ns) {
  const double budget_ns = static_cast<double>(config.samples) * static_cast<double>(config.min_batch_ns);
  if (batch_ns < kLongBatch * static_cast<double>(config.min_batch_ns)) return config.samples;
  const int fit = static_cast<int>(std::ceil(budget_ns / batch_ns));
  return std::min(config.samples, std::max(kMinSamples, fit));
}

// The warm-up's next count while a batch of `iterations` lasted `ns`, short of the probe.
inline std::uint64_t next_probe_count(std::uint64_t iterations, std::uint64_t ns, std::uint64_t probe_ns) {
  if (ns < probe_ns / kTimeableDivisor) return iterations * 2;
  const double predicted = std::ceil(static_cast<double>(iterations) * kProbeMargin * static_cast<double>(probe_ns) /
                                     static_cast<double>(std::max<std::uint64_t>(ns, 1)));
  return std::max(iterations + 1, static_cast<std::uint64_t>(predicted));
}

// time_batch(iterations) runs `iterations` iterations and returns the elapsed ns.
template <class TimeBatch>
SampleRun sample(const SamplerConfig& config, TimeBatch&& time_batch) {
  SampleRun run;
  // Before warm-up: nothing allocates after it.
  run.batch_ns.reserve(static_cast<std::size_t>(config.samples));
  run.batch_iterations.reserve(static_cast<std::size_t>(config.samples));
  std::uint64_t fixed = config.fixed_iterations;
  if (config.wait_for_warmup != nullptr)
    if (const std::uint64_t told = config.wait_for_warmup(); told > 0) fixed = told;

  const std::uint64_t probe_ns = config.min_batch_ns / kProbeDivisor;
  std::uint64_t iterations = 1;
  // An iteration that ran untimed for kWarmupBudget batches' time or more (verification)
  // ends the warm-up as its first batch would have (one iteration, no repeat begun after
  // it), so none is timed: the first sample, of one iteration, gives the rate instead.
  const bool verified_warm = config.follow_rate && !fixed && config.verified_ns >= kWarmupBudget * config.min_batch_ns;
  std::uint64_t ns = verified_warm ? config.verified_ns : time_batch(iterations);
  std::uint64_t warmup_ns = ns;
  if (!verified_warm) ++run.warmup_batches;
  while (ns < probe_ns && iterations < config.max_iterations && (!fixed || iterations < fixed)) {
    iterations = next_probe_count(iterations, ns, probe_ns);
    if (fixed) iterations = std::min(iterations, fixed);
    iterations = std::min(iterations, config.max_iterations);
    ns = time_batch(iterations);
    warmup_ns += ns;
    ++run.warmup_batches;
  }
  // Warm when two batches in a row at one count agree per iteration.
  for (int repeat = 0; repeat < kMaxWarmBatches && !run.warm && warmup_ns < kWarmupBudget * config.min_batch_ns;
       ++repeat) {
    const std::uint64_t again = time_batch(iterations);
    warmup_ns += again;
    ++run.warmup_batches;
    run.warm = std::fabs(static_cast<double>(again) - static_cast<double>(ns)) <=
               kWarmTolerance * static_cast<double>(std::max<std::uint64_t>(ns, 1));
    ns = again;
  }
  const double ns_per_iteration = static_cast<double>(std::max<std::uint64_t>(ns, 1)) / static_cast<double>(iterations);
  const auto predicted_at = [&](double rate) {
    const double count = std::ceil(static_cast<double>(config.min_batch_ns) / rate);
    return std::max<std::uint64_t>(1,
                                   std::min<std::uint64_t>(config.max_iterations, static_cast<std::uint64_t>(count)));
  };
  run.iterations = fixed ? fixed : std::max(iterations, predicted_at(ns_per_iteration));
  const bool follow = config.follow_rate && !fixed;
  int samples =
      follow ? planned_samples(config, ns_per_iteration * static_cast<double>(run.iterations)) : config.samples;
  if (config.on_warmed_up != nullptr)
    config.on_warmed_up(static_cast<std::uint64_t>(ns_per_iteration * static_cast<double>(run.iterations) *
                                                   (1 + config.stretch_max / 2)),
                        run.iterations, samples);
  std::uint64_t base = run.iterations;
  std::array<double, 16> rates{};  // the last samples' ns per iteration: on the stack, nothing allocates
  std::size_t seen = 0;
  for (int s = 0; s < samples; ++s) {
    const auto stretched = static_cast<std::uint64_t>(
        std::llround(static_cast<double>(base) * batch_stretch(config.stretch_seed, s, config.stretch_max)));
    const std::uint64_t count = std::max<std::uint64_t>(stretched, 1);
    if (config.wait_for_sample != nullptr) config.wait_for_sample();
    const std::uint64_t took = time_batch(count);
    run.batch_ns.push_back(took);
    run.batch_iterations.push_back(count);
    if (config.after_sample != nullptr) config.after_sample();
    if (verified_warm && s == 0) samples = planned_samples(config, static_cast<double>(took));
    if (follow && took > 0) {
      rates[seen++ % rates.size()] = static_cast<double>(took) / static_cast<double>(count);
      std::array<double, 16> sorted = rates;
      const std::size_t n = std::min(seen, rates.size());
      std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(n / 2),
                       sorted.begin() + static_cast<std::ptrdiff_t>(n));
      base = predicted_at(sorted[n / 2]);
    }
  }
  return run;
}

}  // namespace abench
