#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/sampler.h"

namespace abench {
namespace {

// A fake batch: every iteration costs a fixed number of ns (the first `cold` batches
// `cold_factor` times that); records what was asked.
struct FakeBatch {
  std::uint64_t ns_per_iteration;
  std::vector<std::uint64_t> asked;
  int cold = 0;
  double cold_factor = 1;
  std::uint64_t operator()(std::uint64_t iterations) {
    asked.push_back(iterations);
    const double factor = static_cast<int>(asked.size()) <= cold ? cold_factor : 1;
    return static_cast<std::uint64_t>(static_cast<double>(iterations * ns_per_iteration) * factor);
  }
};

// Centred on the batch: S samples take S batches' time (a margin and a one-sided stretch had
// made them 1.09 of it in the default run).
TEST(Sampler, TimedBatchesLandWithinTheStretchOfTheTargetAndAverageIt) {
  for (std::uint64_t cost : {1ull, 7ull, 1000ull, 33'333ull, 1'000'000ull}) {
    FakeBatch batch{cost, {}};
    SamplerConfig config;
    config.min_batch_ns = 25'000'000;
    config.samples = 11;
    config.stretch_seed = 42;
    const SampleRun run = sample(config, batch);
    ASSERT_EQ(run.batch_ns.size(), 11u);
    ASSERT_EQ(run.batch_iterations.size(), 11u);
    const double target = static_cast<double>(config.min_batch_ns);
    double sum = 0;
    for (std::size_t k = 0; k < run.batch_ns.size(); ++k) {
      const double ns = static_cast<double>(run.batch_ns[k]);
      sum += ns;
      // A batch of a whole number of iterations of 1 ms may overshoot by one of them.
      EXPECT_GE(ns, (1 - kDefaultStretch / 2) * target - static_cast<double>(cost)) << cost;
      EXPECT_LE(ns, (1 + kDefaultStretch / 2) * target + static_cast<double>(cost)) << cost;
      EXPECT_EQ(run.batch_ns[k], run.batch_iterations[k] * cost);
    }
    EXPECT_NEAR(sum / 11 / target, 1.0, 0.02 + static_cast<double>(cost) / target) << cost;
    EXPECT_TRUE(run.warm);
    // Warm-up costs a fraction of one timed batch: the doubling to a sixteenth, and one
    // repeat that agrees.
    std::uint64_t warmup_ns = 0;
    for (int b = 0; b < run.warmup_batches; ++b) warmup_ns += batch.asked[static_cast<std::size_t>(b)] * cost;
    EXPECT_LE(warmup_ns, config.min_batch_ns / 2) << cost;
  }
}

// The warm-up doubles only while a batch is too short to predict from, then runs the count
// predicted for 1.2 probes: doubling all the way spent about two probes before the first
// batch that reached one, and that batch ran 1 to 2 probes, so three probes or more.
TEST(Sampler, TheWarmUpDoublesUntilABatchCanBeTimedThenPredictsTheProbe) {
  for (std::uint64_t cost : {1ull, 7ull, 13ull, 333ull, 40'000ull}) {
    FakeBatch batch{cost, {}};
    SamplerConfig config;
    config.min_batch_ns = 25'000'000;
    config.samples = 1;
    const SampleRun run = sample(config, batch);
    ASSERT_TRUE(run.warm) << cost;
    const double probe = static_cast<double>(config.min_batch_ns / kProbeDivisor);
    double doubling = 0, warmup = 0;
    int at_probe = 0;
    for (int b = 0; b < run.warmup_batches; ++b) {
      const auto ns = static_cast<double>(batch.asked[static_cast<std::size_t>(b)] * cost);
      warmup += ns;
      if (ns >= probe) {
        ++at_probe;
        EXPECT_LE(ns, kProbeMargin * probe + static_cast<double>(cost)) << cost;
      } else {
        doubling += ns;
      }
    }
    EXPECT_EQ(at_probe, 2) << cost;  // the predicted probe and one repeat that agrees
    EXPECT_LT(doubling, probe / 4) << cost;
    EXPECT_LT(warmup, 2.7 * probe) << cost;
  }
}

TEST(Sampler, BatchesAreStretchedByDifferentFactorsTheSameForTheSameSeed) {
  SamplerConfig config;
  config.min_batch_ns = 1'000'000;
  config.samples = 20;
  config.stretch_seed = 7;
  FakeBatch a{10, {}}, b{10, {}}, c{10, {}};
  const SampleRun one = sample(config, a), two = sample(config, b);
  EXPECT_EQ(one.batch_iterations, two.batch_iterations);  // both sides of a pair: the same work
  const auto [low, high] = std::minmax_element(one.batch_iterations.begin(), one.batch_iterations.end());
  EXPECT_GT(static_cast<double>(*high) / static_cast<double>(*low), 1.04);  // not in lockstep
  EXPECT_LE(*high, static_cast<std::uint64_t>(static_cast<double>(one.iterations) * (1 + kDefaultStretch / 2)) + 1);
  EXPECT_GE(*low, static_cast<std::uint64_t>(static_cast<double>(one.iterations) * (1 - kDefaultStretch / 2)));
  EXPECT_LT(*low, one.iterations);  // below the count as well as above it
  config.stretch_seed = 8;
  EXPECT_NE(sample(config, c).batch_iterations, one.batch_iterations);
}

TEST(Sampler, AColdCellWarmsUpUntilTwoBatchesAgree) {
  // Each batch runs faster than the one before (caches, the allocator's free lists, page
  // faults settling): 1000 ns an iteration x (1 + 2 x 0.7^batch).
  int calls = 0;
  SamplerConfig config;
  config.min_batch_ns = 160'000;  // probes of 10 us
  config.samples = 3;
  const SampleRun run = sample(config, [&](std::uint64_t iterations) {
    return static_cast<std::uint64_t>(static_cast<double>(iterations) * 1000 * (1 + 2 * std::pow(0.7, calls++)));
  });
  EXPECT_TRUE(run.warm);
  // Consecutive batches first agree within 3% from the tenth on (0.7^9 x 2 = 8% above).
  EXPECT_GE(run.warmup_batches, 10);
  // Predicted from the last warm-up batch (about 1050 ns an iteration by then): 152, where
  // the first batch's rate would have given 54.
  EXPECT_EQ(run.iterations, 152u);
}

TEST(Sampler, ACellThatNeverSettlesStopsWarmingAtTheCapAndSaysSo) {
  std::uint64_t calls = 0;
  SamplerConfig config;
  config.min_batch_ns = 1'600'000;
  config.samples = 2;
  const SampleRun run = sample(config, [&](std::uint64_t iterations) {
    return iterations * (1000 + 200 * (++calls % 2));  // alternates 20% apart
  });
  EXPECT_FALSE(run.warm);
  EXPECT_EQ(run.batch_ns.size(), 2u);
}

TEST(Sampler, WithoutAPartnerEachSampleFollowsTheRateOfTheSamplesBefore) {
  // A batch costs 40 us more than its iterations (a fixed cost per batch): the warm-up's
  // short batches overstate the time per iteration, so a count predicted from them alone
  // gives timed batches short of the target.
  auto batch = [](std::uint64_t iterations) { return 40'000 + iterations * 1000; };
  SamplerConfig config;
  config.min_batch_ns = 16'000'000;  // warm-up batches of 1 ms: 4% of them is the fixed cost
  config.samples = 8;
  config.stretch_max = 0;
  const SampleRun fixed_rate = sample(config, batch);
  EXPECT_LT(fixed_rate.batch_ns.back(), config.min_batch_ns);
  config.follow_rate = true;
  const SampleRun followed = sample(config, batch);
  EXPECT_LT(followed.batch_ns.front(), config.min_batch_ns);  // the first: as predicted by the warm-up
  for (std::size_t k = 1; k < followed.batch_ns.size(); ++k)
    EXPECT_NEAR(static_cast<double>(followed.batch_ns[k]), static_cast<double>(config.min_batch_ns),
                0.002 * static_cast<double>(config.min_batch_ns))
        << k;
  EXPECT_LT(followed.batch_ns.front(), 0.99 * static_cast<double>(config.min_batch_ns));  // what following repairs
  EXPECT_EQ(followed.iterations, fixed_rate.iterations);  // the recorded count: the warm-up's prediction
}

TEST(Sampler, SlowOperationRunsOneIterationABatch) {
  FakeBatch batch{30'000'000, {}};
  const SampleRun run = sample(SamplerConfig{}, batch);
  EXPECT_EQ(run.iterations, 1u);
  for (auto n : run.batch_iterations) EXPECT_EQ(n, 1u);
}

// An iteration of 110 ms against 25 ms batches (the default matrix's append of 64 KiB at live
// 64): warm-up repeats stop after four batches' time, and without a partner the process takes
// the samples that fill 11 batches' time (3, each 110 ms), not 11 of them.
TEST(Sampler, AnIterationLongerThanTheBatchTakesTheSamplesThatFillTheBatchesTime) {
  std::uint64_t calls = 0;
  const auto noisy_long = [&](std::uint64_t iterations) {  // 10% apart, never agreeing within 3%
    return iterations * (110'000'000 + 11'000'000 * (++calls % 2));
  };
  SamplerConfig config;  // 25 ms, 11 samples
  config.follow_rate = true;
  const SampleRun run = sample(config, noisy_long);
  EXPECT_EQ(run.iterations, 1u);
  EXPECT_FALSE(run.warm);
  EXPECT_EQ(run.warmup_batches, 1);  // the first batch alone: 110 ms is past 3 x 25, no repeat begins
  EXPECT_EQ(run.batch_ns.size(), static_cast<std::size_t>(kMinSamples));
  std::uint64_t sampled = 0;
  for (auto ns : run.batch_ns) sampled += ns;
  EXPECT_GE(sampled, 11 * config.min_batch_ns);  // the time every other cell's process samples, at least

  // Two iterations in 1.6 batches: long, so 11 x 25 / 40 -> 7 samples.
  FakeBatch medium{20'000'000, {}};
  EXPECT_EQ(sample(config, medium).batch_ns.size(), 7u);
  // One iteration in 1.3 batches (64 buffers grown to 64 KiB, about 35 ms): 11 x 25 / 32.5 -> 9.
  FakeBatch grown{32'500'000, {}};
  EXPECT_EQ(sample(config, grown).batch_ns.size(), 9u);
  // An ordinary cell and a paired process keep every sample.
  FakeBatch quick{1000, {}};
  EXPECT_EQ(sample(config, quick).batch_ns.size(), 11u);
  config.follow_rate = false;
  EXPECT_EQ(sample(config, noisy_long).batch_ns.size(), 11u);
  config.fixed_iterations = 1;
  config.follow_rate = true;
  EXPECT_EQ(sample(config, noisy_long).batch_ns.size(), 11u);
}

// Verification that ran one iteration untimed for the warm-up's budget or more was the
// warm-up: no batch is timed before the samples, and the first sample's time plans how many
// follow. A shorter verification, or a paired process, warms up as ever.
TEST(Sampler, AVerificationAsLongAsTheWarmUpBudgetIsTheWarmUp) {
  SamplerConfig config;  // 25 ms, 11 samples
  config.follow_rate = true;
  config.verified_ns = 130'000'000;  // through the checked allocator: slower than a timed iteration
  FakeBatch long_one{110'000'000, {}};
  const SampleRun run = sample(config, long_one);
  EXPECT_EQ(run.warmup_batches, 0);
  EXPECT_FALSE(run.warm);
  EXPECT_EQ(run.iterations, 1u);
  EXPECT_EQ(run.batch_ns.size(), 3u);  // 11 x 25 ms filled by 110 ms samples
  EXPECT_EQ(long_one.asked, (std::vector<std::uint64_t>{1, 1, 1}));

  // Verification said 80 ms, the first sample 32 ms: planned from the sample, 9 of them.
  config.verified_ns = 80'000'000;
  FakeBatch shorter{32'000'000, {}};
  EXPECT_EQ(sample(config, shorter).batch_ns.size(), 9u);

  config.verified_ns = 3 * config.min_batch_ns - 1;  // short of the budget: warm-up as ever
  FakeBatch normal{110'000'000, {}};
  EXPECT_EQ(sample(config, normal).warmup_batches, 1);
  config.verified_ns = 130'000'000;
  config.follow_rate = false;  // a paired process: both sides warm up alike
  FakeBatch paired{110'000'000, {}};
  EXPECT_EQ(sample(config, paired).warmup_batches, 1);
}

TEST(Sampler, FixedIterationsAreSampledAtThatCountStretched) {
  FakeBatch batch{1, {}};
  SamplerConfig config;
  config.fixed_iterations = 500;
  config.samples = 3;
  config.min_batch_ns = 400;
  config.stretch_max = 0;
  const SampleRun run = sample(config, batch);
  EXPECT_EQ(run.iterations, 500u);
  EXPECT_EQ(run.batch_iterations, (std::vector<std::uint64_t>{500, 500, 500}));
}

TEST(Sampler, StopsAtMaxIterationsWhenABatchNeverGetsLong) {
  FakeBatch batch{0, {}};
  SamplerConfig config;
  config.max_iterations = 1024;
  config.samples = 2;
  config.stretch_max = 0;
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
  config.min_batch_ns = 64'000;
  config.stretch_max = 0;
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
  // One iteration (1 us) is past a sixteenth of the 4 us probe (1/16 of 64 us): the count
  // predicted for 1.2 probes (5), one repeat that agrees, then 64 iterations.
  EXPECT_EQ(run.iterations, 64u);
  EXPECT_EQ(g_paced_log, (std::vector<std::string>{"W", "B1", "B5", "B5", "S", "B64", "D", "S", "B64", "D"}));
}

TEST(Sampler, APacedSamplerSamplesAtTheCountItIsTold) {
  g_paced_log.clear();
  g_told_iterations = 96;
  SamplerConfig config;
  config.samples = 1;
  config.min_batch_ns = 64;
  config.stretch_max = 0;
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
  EXPECT_EQ(g_paced_log, (std::vector<std::string>{"W", "B1", "B5", "B5", "B96"}));
}

}  // namespace
}  // namespace abench
