// The sampler: how many iterations make a batch, and how many batches are timed.
//
// State machine: warmup (double the iteration count until one batch lasts at least
// min_batch_ns) -> measuring (`samples` batches at that fixed count). Warmup batches are
// never samples: they ran on cold caches and a cold allocator, which is why they exist.
// With fixed_iterations set (compare: both sides of a cell do the same work), warmup is
// one batch at that count; a paced worker may be told the count when its warm-up starts.
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
  void (*on_warmed_up)(std::uint64_t batch_ns, std::uint64_t iterations, int samples) = nullptr;
  // A paced worker (the two sides of a compare's cell alternating batch by batch,
  // docs/protocol.md "Paced pairs") waits before its warm-up and before each sample until
  // abench says go. wait_for_warmup returns the iteration count to warm up at (0: as
  // configured); after_sample tells abench a sample is done. Neither may allocate: the
  // allocator under test must serve nothing between batches but the batches.
  std::uint64_t (*wait_for_warmup)() = nullptr;
  void (*wait_for_sample)() = nullptr;
  void (*after_sample)() = nullptr;
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
  run.batch_ns.reserve(static_cast<std::size_t>(config.samples));  // before warm-up: nothing allocates after it
  std::uint64_t fixed = config.fixed_iterations;
  if (config.wait_for_warmup != nullptr)
    if (const std::uint64_t told = config.wait_for_warmup(); told > 0) fixed = told;
  std::uint64_t iterations = fixed ? fixed : 1;
  std::uint64_t ns = 0;
  for (;;) {
    ns = time_batch(iterations);
    ++run.warmup_batches;
    if (fixed || ns >= config.min_batch_ns ||
        iterations >= config.max_iterations)
      break;
    iterations *= 2;
  }
  run.iterations = iterations;
  if (config.on_warmed_up != nullptr) config.on_warmed_up(ns, iterations, config.samples);
  for (int s = 0; s < config.samples; ++s) {
    if (config.wait_for_sample != nullptr) config.wait_for_sample();
    run.batch_ns.push_back(time_batch(iterations));
    if (config.after_sample != nullptr) config.after_sample();
  }
  return run;
}

}  // namespace abench
