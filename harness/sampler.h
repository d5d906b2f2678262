// The sampler: how many iterations make a batch, and how many batches are timed.
//
// State machine: warmup (double the iteration count until one batch lasts at least
// min_batch_ns) -> measuring (`samples` batches at that fixed count). Warmup batches are
// never samples: they ran on cold caches and a cold allocator, which is why they exist.
// With fixed_iterations set (compare: both sides of a cell do the same work), warmup is
// one batch at that count.
#pragma once

#include <cstdint>
#include <vector>

namespace abench {

struct SamplerConfig {
  std::uint64_t min_batch_ns = 25'000'000;
  int samples = 11;
  std::uint64_t fixed_iterations = 0;            // 0: adaptive
  std::uint64_t max_iterations = 1ull << 36;     // guards a batch that never gets long
  // Called once warm-up has fixed the batch, before the first sample, with the last
  // warm-up batch's time: the worker tells abench how long the samples will take, so a
  // hang is found in seconds (docs/protocol.md, "warm"). Not part of the request.
  void (*on_warmed_up)(std::uint64_t batch_ns, int samples) = nullptr;
};

struct SampleRun {
  std::uint64_t iterations = 0;       // per batch, the same for every sample
  int warmup_batches = 0;
  std::vector<std::uint64_t> batch_ns;  // one per sample
};

// time_batch(iterations) runs `iterations` iterations and returns the elapsed ns.
template <class TimeBatch>
SampleRun sample(const SamplerConfig& config, TimeBatch&& time_batch) {
  SampleRun run;
  std::uint64_t iterations = config.fixed_iterations ? config.fixed_iterations : 1;
  std::uint64_t ns = 0;
  for (;;) {
    ns = time_batch(iterations);
    ++run.warmup_batches;
    if (config.fixed_iterations || ns >= config.min_batch_ns ||
        iterations >= config.max_iterations)
      break;
    iterations *= 2;
  }
  run.iterations = iterations;
  if (config.on_warmed_up != nullptr) config.on_warmed_up(ns, config.samples);
  run.batch_ns.reserve(static_cast<std::size_t>(config.samples));
  for (int s = 0; s < config.samples; ++s) run.batch_ns.push_back(time_batch(iterations));
  return run;
}

}  // namespace abench
