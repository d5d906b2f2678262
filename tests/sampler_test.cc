#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// What a paced sampler did, in order: "W" waited for warm-up, "B<n>" ran a batch of n
// iterations, "S" waited for a sample, "D" said a sample was done.
std::vector<std::string> g_paced_log;
std::uint64_t g_told_iterations = 0;

TEST(Sampler, APacedSamplerWaitsBeforeWarmupAndEverySampleAndSaysWhenEachIsDone) {
  g_paced_log.clear();
  g_told_iterations = 0;
  SamplerConfig config;
  config.samples = 2;
  config.min_batch_ns = 4000;
  config.wait_for_warmup = [] {
    g_paced_log.push_back("W");
    return g_told_iterations;
  };
  config.wait_for_sample = [] { g_paced_log.push_back("S"); };
  config.after_sample = [] { g_paced_log.push_back("D"); };
  const SampleRun run = sample(config, [](std::uint64_t iterations) {
    g_paced_log.push_back("B" + std::to_string(iterations));
    return iterations * 1000;
  });
  EXPECT_EQ(run.iterations, 4u);
  EXPECT_EQ(g_paced_log, (std::vector<std::string>{"W", "B1", "B2", "B4", "S", "B4", "D", "S", "B4", "D"}));
}

TEST(Sampler, APacedSamplerWarmsUpAtTheCountItIsTold) {
  g_paced_log.clear();
  g_told_iterations = 96;
  SamplerConfig config;
  config.samples = 1;
  config.fixed_iterations = 8;  // an earlier round's count: the pace channel's word wins
  config.wait_for_warmup = [] {
    g_paced_log.push_back("W");
    return g_told_iterations;
  };
  const SampleRun run = sample(config, [](std::uint64_t iterations) {
    g_paced_log.push_back("B" + std::to_string(iterations));
    return iterations;
  });
  EXPECT_EQ(run.iterations, 96u);
  EXPECT_EQ(run.warmup_batches, 1);
  EXPECT_EQ(g_paced_log, (std::vector<std::string>{"W", "B96", "B96"}));
}

}  // namespace
}  // namespace abench
