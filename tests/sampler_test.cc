#include <gtest/gtest.h>

#include "harness/sampler.h"

namespace abench {
namespace {

// A fake batch: every iteration costs a fixed number of ns; records what was asked.
struct FakeBatch {
  std::uint64_t ns_per_iteration;
  std::vector<std::uint64_t> asked;
  std::uint64_t operator()(std::uint64_t iterations) {
    asked.push_back(iterations);
    return iterations * ns_per_iteration;
  }
};

TEST(Sampler, DoublesUntilABatchReachesTheMinimumThenSamplesAtThatCount) {
  FakeBatch batch{1000, {}};
  SamplerConfig config;
  config.min_batch_ns = 25'000'000;
  config.samples = 11;
  const SampleRun run = sample(config, batch);
  // 2^15 * 1000 ns = 32.8 ms is the first batch >= 25 ms.
  EXPECT_EQ(run.iterations, 32768u);
  EXPECT_EQ(run.warmup_batches, 16);
  ASSERT_EQ(run.batch_ns.size(), 11u);
  for (auto ns : run.batch_ns) EXPECT_EQ(ns, 32768u * 1000);
  EXPECT_EQ(batch.asked.front(), 1u);
  EXPECT_EQ(batch.asked.size(), 16u + 11u);
}

TEST(Sampler, SlowOperationNeedsOneWarmupBatch) {
  FakeBatch batch{30'000'000, {}};
  const SampleRun run = sample(SamplerConfig{}, batch);
  EXPECT_EQ(run.iterations, 1u);
  EXPECT_EQ(run.warmup_batches, 1);
}

TEST(Sampler, FixedIterationsSkipAdaptation) {
  FakeBatch batch{1, {}};
  SamplerConfig config;
  config.fixed_iterations = 500;
  config.samples = 3;
  const SampleRun run = sample(config, batch);
  EXPECT_EQ(run.iterations, 500u);
  EXPECT_EQ(batch.asked, (std::vector<std::uint64_t>{500, 500, 500, 500}));
}

TEST(Sampler, StopsAtMaxIterationsWhenABatchNeverGetsLong) {
  FakeBatch batch{0, {}};
  SamplerConfig config;
  config.max_iterations = 1024;
  config.samples = 2;
  const SampleRun run = sample(config, batch);
  EXPECT_EQ(run.iterations, 1024u);
}

}  // namespace
}  // namespace abench
