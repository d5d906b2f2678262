// Adaptive rounds' stopping rule, checked by simulation: cells where nothing changed (the
// rounds' paired log ratios drawn around 0 from several noise shapes, each cell with a scale
// of its own), judged by the sign test the compare uses, after (a) the fixed protocol's 6
// rounds, (b) the width rule abench uses, (c) stopping as soon as the verdict is a call.
// A call here is a false call. (c) is what the issue warned against: it must show the
// inflation, or this simulation could not see one; (b) must keep it within 1 - confidence.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "src/util/errors.h"
#include "src/plan/protocol_rules.h"
#include "src/plan/shard.h"
#include "src/results/results_writers.h"
#include "src/run/adaptive_rounds.h"
#include "src/run/result_saver.h"
#include "src/stats/rank_intervals.h"
#include "src/stats/statistics.h"
#include "src/util/json_file.h"
#include "tests/emulation.h"
#include "tests/sanitized.h"
#include "tests/fake_launcher.h"
#include "tests/temp_dir.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

constexpr double kConfidence = 0.95;
constexpr int kStartRounds = 6;

enum class Noise { normal, laplace, skewed, heavy };
enum class Stop { fixed, width, once_called };

struct Simulated {
  double false_calls = 0;  // a fraction of the cells
  double mean_rounds = 0;
};

// One round's paired log ratio with median 0 (nothing changed), at the cell's scale.
double draw(Noise noise, double scale, std::mt19937_64& rng) {
  std::normal_distribution<double> normal;
  std::exponential_distribution<double> exponential;
  std::student_t_distribution<double> t2(2);
  switch (noise) {
    case Noise::normal: return scale * normal(rng);
    case Noise::laplace: return scale * exponential(rng) * (rng() & 1 ? 1 : -1);
    case Noise::skewed: return scale * (std::exp(normal(rng)) - 1);  // median 0, a long right tail
    case Noise::heavy: return scale * t2(rng);
  }
  return 0;
}

Simulated simulate(Stop stop, Noise noise, double target_width, int cells, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  // Cells differ in noise: scales from 0.1% to 5%, log-uniform, as across the quick matrix.
  std::uniform_real_distribution<double> log_scale(std::log(0.001), std::log(0.05));
  const IntervalTarget target{target_width, 24, kConfidence};
  long calls = 0, rounds = 0;
  for (int c = 0; c < cells; ++c) {
    const double scale = std::exp(log_scale(rng));
    std::vector<double> d;
    for (int r = 0; r < kStartRounds; ++r) d.push_back(draw(noise, scale, rng));
    while (true) {
      const ShiftInterval i = sign_interval(d, kConfidence);
      const bool called = i.reached && (i.low > 0 || i.high < 0);
      const double width = i.reached ? std::exp(i.high) - std::exp(i.low) : INFINITY;
      const bool more = stop == Stop::fixed   ? false
                        : stop == Stop::width ? needs_another_round(width, static_cast<int>(d.size()), target)
                                              : !called && static_cast<int>(d.size()) < target.max_rounds;
      if (!more) {
        calls += called;
        rounds += static_cast<long>(d.size());
        break;
      }
      d.push_back(draw(noise, scale, rng));
    }
  }
  return {static_cast<double>(calls) / cells, static_cast<double>(rounds) / cells};
}

constexpr int kCells = 20000;

TEST(AdaptiveRoundsSimulation, StoppingOnWidthKeepsFalseCallsWithinTheConfidence) {
  // Arithmetic on simulated rounds, the same on every architecture: the native suite checks it
  // in seconds, qemu took 142 s and 126 s.
  ABENCH_SKIP_UNDER_EMULATION("a simulation of the statistics, whose answer does not depend on the CPU");
  if (testing::linked_with_address_sanitizer())
    GTEST_SKIP()
        << "the plain build runs this simulation: the arithmetic is the same sanitized, and takes 15-19 s there";
  for (Noise noise : {Noise::normal, Noise::laplace, Noise::skewed, Noise::heavy})
    for (double width : {0.01, 0.02, 0.05}) {
      const Simulated fixed = simulate(Stop::fixed, noise, width, kCells, 11);
      const Simulated by_width = simulate(Stop::width, noise, width, kCells, 12);
      const Simulated once_called = simulate(Stop::once_called, noise, width, kCells, 13);
      std::printf(
          "noise %d width %.0f%%: false calls fixed %.2f%% (6 rounds), width rule %.2f%% (%.1f rounds), "
          "stop once called %.2f%% (%.1f rounds)\n",
          static_cast<int>(noise), width * 100, fixed.false_calls * 100, by_width.false_calls * 100,
          by_width.mean_rounds, once_called.false_calls * 100, once_called.mean_rounds);
      // 20000 cells: a rate of 5% is known to about +-0.15% (one standard error).
      EXPECT_LE(by_width.false_calls, 1 - kConfidence) << "noise " << static_cast<int>(noise) << " width " << width;
      EXPECT_GT(once_called.false_calls, 2 * fixed.false_calls) << "the simulation would not see an inflation";
    }
}

TEST(AdaptiveRoundsRule, AddsARoundWhileWiderThanTheTargetOrUnreachedAndBelowTheCap) {
  const IntervalTarget target{0.02, 10, kConfidence};
  EXPECT_TRUE(needs_another_round(0.021, 6, target));
  EXPECT_FALSE(needs_another_round(0.02, 6, target));
  EXPECT_FALSE(needs_another_round(0.005, 6, target));
  EXPECT_TRUE(needs_another_round(INFINITY, 3, target));
  EXPECT_FALSE(needs_another_round(0.5, 10, target));
  EXPECT_FALSE(needs_another_round(INFINITY, 10, target));
  EXPECT_TRUE(needs_another_round(NAN, 6, target));  // no width known: not narrow
}

// Results about to run a plan of matrix m.
RunResults planned(const Matrix& m, Plan plan) {
  RunResults results;
  results.matrix = m;
  results.protocol = m.protocol;
  results.plan = std::move(plan);
  return results;
}

// The jobs of a round the plan already has, asked for again, are the plan's own: same
// variant order, seeds and cells; so a round added later is one more of the same kind.
void expect_rounds_match_the_plan(const Plan& plan, std::uint64_t seed, const std::vector<int>& cells) {
  for (int round = 0; round < plan.processes; ++round) {
    std::vector<Job> planned;
    for (const Job& job : plan.jobs)
      if (job.mode == WorkerMode::time && job.round == round) planned.push_back(job);
    const std::vector<Job> again = round_jobs_for_cells(plan, seed, round, cells);
    ASSERT_EQ(again.size(), planned.size()) << "round " << round;
    for (std::size_t k = 0; k < planned.size(); ++k) {
      EXPECT_EQ(again[k].variant, planned[k].variant) << "round " << round << " job " << k;
      EXPECT_EQ(again[k].cell_ids, planned[k].cell_ids) << "round " << round << " job " << k;
      EXPECT_EQ(again[k].seed, planned[k].seed) << "round " << round << " job " << k;
    }
  }
}

TEST(AdaptiveRoundsJobs, ARoundAskedForAgainIsThePlansOwnInARunAndInACompare) {
  Matrix m = testing::small_matrix({"system", "mimalloc", "jemalloc"}, 4, {64, 4096}, {1, 64});
  m.protocol.fresh_process_per_cell = true;
  const Plan run = make_plan(m, 77);
  const std::size_t per_variant = run.cells.size() / 3;
  // A run asks per cell: give the cells of a position together, in variant order.
  std::vector<int> by_position;
  for (std::size_t position = 0; position < per_variant; ++position)
    for (std::size_t v = 0; v < 3; ++v) by_position.push_back(static_cast<int>(v * per_variant + position));
  for (int round = 0; round < run.processes; ++round) {
    std::vector<Job> planned;
    for (const Job& job : run.jobs)
      if (job.round == round) planned.push_back(job);
    std::vector<Job> again = round_jobs_for_cells(run, 77, round, by_position);
    ASSERT_EQ(again.size(), planned.size());
    // The plan orders a position's variants by the round's rotation; compare as sets per seed.
    std::map<int, std::uint64_t> planned_seed, again_seed;
    for (const Job& j : planned) planned_seed[j.cell_ids[0]] = j.seed;
    for (const Job& j : again) again_seed[j.cell_ids[0]] = j.seed;
    EXPECT_EQ(again_seed, planned_seed) << "round " << round;
  }

  Variant before, after;
  before.backend = after.backend = "system";
  after.name = "after";
  Matrix paired = testing::small_matrix({"system"}, 6, {64, 4096}, {1, 64});
  paired.protocol.fresh_process_per_cell = paired.protocol.interleave_batches = true;
  const Plan compare = make_compare_plan(paired, {before}, {after}, 5);
  std::vector<int> baselines;
  for (const PlannedCell& cell : compare.cells)
    if (cell.variant == 0) baselines.push_back(cell.spec.id);
  expect_rounds_match_the_plan(compare, 5, baselines);

  // A shard's cells get the seeds they have in the whole plan.
  const Plan shard = shard_plan(compare, paired.protocol, {2, 3});
  std::vector<int> shard_baselines;
  for (const PlannedCell& cell : shard.cells)
    if (cell.variant == 0) shard_baselines.push_back(cell.spec.id);
  ASSERT_FALSE(shard_baselines.empty());
  expect_rounds_match_the_plan(shard, 5, shard_baselines);

  // A round after the plan's: both sides of each pair, one seed a pair, new seeds.
  const std::vector<Job> seventh = round_jobs_for_cells(compare, 5, 6, baselines);
  ASSERT_EQ(seventh.size(), 2 * baselines.size());
  std::set<std::uint64_t> seeds;
  for (const Job& j : compare.jobs) seeds.insert(j.seed);
  for (std::size_t k = 0; k < seventh.size(); k += 2) {
    EXPECT_EQ(seventh[k].seed, seventh[k + 1].seed);
    EXPECT_EQ(compare.partner[static_cast<std::size_t>(seventh[k].cell_ids[0])], seventh[k + 1].cell_ids[0]);
    EXPECT_EQ(seventh[k].round, 6);
    EXPECT_FALSE(seeds.contains(seventh[k].seed));
  }
}

// A run of two cells per variant through the fake launcher: cell 0 of each variant is noisy
// (its process medians spread by 10%), the others steady. Adaptive rounds give the steady
// cells the 6 rounds a 95% interval needs and no more; the noisy ones run to the cap.
TEST(AdaptiveRounds, AddRoundsOnlyToCellsWhoseIntervalIsStillTooWideUpToTheCap) {
  Matrix m = testing::small_matrix({"system", "mimalloc"}, 3, {64}, {1});
  m.workloads = {Workload::allocate, Workload::grow};
  m.protocol.fresh_process_per_cell = true;
  m.protocol.until_interval = 0.02;
  m.protocol.max_rounds = 9;
  RunResults results = planned(m, make_plan(m, 3));
  testing::FakeLauncher launcher;
  std::map<int, std::set<std::size_t>> launches;  // of each cell (ns_of is asked once per sample)
  launcher.ns_of = [&](const std::string&, int cell) {
    launches[cell].insert(launcher.launched.size());
    const std::size_t k = launches[cell].size();
    return cell % 2 == 0 ? 10.0 * (1 + 0.05 * static_cast<double>(k % 3)) : 10.0;
  };
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  run_plan(results, launcher, hooks);
  std::vector<std::size_t> rounds_announced;
  run_adaptive_rounds(results, {0.02, 9, 0.95}, launcher, hooks, std::chrono::steady_clock::now(),
                      [&](const RoundAnnouncement& round) {
                        EXPECT_EQ(round.jobs.size(), round.cells);  // a run: one process per cell
                        EXPECT_EQ(round.unresolved, round.cells);   // no budget leaves any out
                        EXPECT_EQ(round.seconds_left, -1);
                        rounds_announced.push_back(round.cells);
                      });
  for (const CellRecord& cell : results.cells) {
    const bool noisy = cell.cell.spec.id % 2 == 0;
    ASSERT_EQ(cell.processes.size(), noisy ? 9u : 6u) << cell_label(cell.cell.spec);
    for (std::size_t k = 0; k < cell.processes.size(); ++k) EXPECT_EQ(cell.processes[k].round, static_cast<int>(k));
    const std::optional<double> width = interval_width(results, cell.cell.spec.id, 0.95);
    ASSERT_TRUE(width);
    if (noisy)
      EXPECT_GT(*width, 0.02);
    else
      EXPECT_LE(*width, 0.02);
  }
  // Rounds 4-6 for all four cells, 7-9 for the two noisy ones.
  EXPECT_EQ(rounds_announced, (std::vector<std::size_t>{4, 4, 4, 2, 2, 2}));
  EXPECT_TRUE(cells_needing_a_round(results, {0.02, 9, 0.95}).empty());
}

// A budget: the same noisy and steady cells; with an hour left it adds what the width rule
// adds; with its time already spent it adds nothing, and says how many cells it left wide.
TEST(AdaptiveRounds, ABudgetAddsRoundsOnlyWhileItsTimeAllows) {
  for (const bool spent : {false, true}) {
    Matrix m = testing::small_matrix({"system", "mimalloc"}, 3, {64}, {1});
    m.workloads = {Workload::allocate, Workload::grow};
    m.protocol.fresh_process_per_cell = true;
    RunResults results = planned(m, make_plan(m, 3));
    testing::FakeLauncher launcher;
    std::map<int, std::set<std::size_t>> launches;
    launcher.ns_of = [&](const std::string&, int cell) {
      launches[cell].insert(launcher.launched.size());
      return cell % 2 == 0 ? 10.0 * (1 + 0.05 * static_cast<double>(launches[cell].size() % 3)) : 10.0;
    };
    OrchestratorHooks hooks;
    hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
    run_plan(results, launcher, hooks);
    const IntervalTarget target{0.02, 9, 0.95, 3600};
    const auto started = std::chrono::steady_clock::now() - std::chrono::hours(spent ? 2 : 0);
    std::vector<std::size_t> announced;
    run_adaptive_rounds(results, target, launcher, hooks, started, [&](const RoundAnnouncement& round) {
      EXPECT_GT(round.seconds_left, 3500);
      EXPECT_LE(round.seconds_left, 3600);
      announced.push_back(round.cells);
    });
    std::size_t noisy_rounds = 0;
    for (const CellRecord& cell : results.cells)
      if (cell.cell.spec.id % 2 == 0) noisy_rounds = std::max(noisy_rounds, cell.processes.size());
    if (spent) {
      EXPECT_TRUE(announced.empty());
      EXPECT_EQ(noisy_rounds, 3u);
      EXPECT_EQ(cells_left_wide(results, target), 4u);  // 3 rounds reach no 95% interval
    } else {
      EXPECT_EQ(announced, (std::vector<std::size_t>{4, 4, 4, 2, 2, 2}));
      EXPECT_EQ(noisy_rounds, 9u);
      EXPECT_EQ(cells_left_wide(results, target), 2u);  // the noisy two, at the cap
    }
  }
}

TEST(AdaptiveRoundsBudget, RoundsToReachFollowTheSignIntervalsLargeSampleWidth) {
  // 2 x 1.96 x sqrt(pi/2) x 0.02 / 0.02 = 4.913; squared, 24.14 rounds: 19 more after 6.
  EXPECT_EQ(rounds_to_reach(0.02, 6, 0.02, 0.95), 19);
  EXPECT_EQ(rounds_to_reach(0.02, 6, 0.04, 0.95), 1);   // 6.03 rounds: one more
  EXPECT_EQ(rounds_to_reach(0.004, 6, 0.02, 0.95), 1);  // already narrow enough: one at least
  EXPECT_EQ(rounds_to_reach(0.0, 3, 0.02, 0.95), 1);    // no spread known: one round shows more
  EXPECT_EQ(rounds_to_reach(0.02, 6, 0.02, 0.99), 36);  // z = 2.576: 41.7 rounds
  // Simulated: normal round ratios of spread 2% reach a 95% sign interval 2% wide in about
  // as many rounds as predicted (the median width over 2000 draws of 24 rounds).
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0, 0.02);
  std::vector<double> widths;
  for (int k = 0; k < 2000; ++k) {
    std::vector<double> d;
    for (int r = 0; r < 24; ++r) d.push_back(normal(rng));
    const ShiftInterval i = sign_interval(d, 0.95);
    widths.push_back(std::exp(i.high) - std::exp(i.low));
  }
  std::nth_element(widths.begin(), widths.begin() + 1000, widths.end());
  EXPECT_NEAR(widths[1000], 0.02, 0.004);
}

TEST(AdaptiveRoundsBudget, TheCheapestCellsToNarrowGoFirstAsManyAsTheTimeLeftTakes) {
  // Cell 1 needs 19 rounds of 1 s; cell 2 one round of 2 s; cell 3 one of 10 s; cell 4 19 of 0.5 s.
  const std::vector<RoundCandidate> candidates{
      {1, 6, 0.02, 1.0}, {2, 6, 0.01, 2.0}, {3, 6, 0.01, 10.0}, {4, 6, 0.02, 0.5}};
  EXPECT_EQ(cells_within_budget(candidates, 0.02, 0.95, 1000), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(cells_within_budget(candidates, 0.02, 0.95, 30), (std::vector<int>{2, 3, 4}));  // 2 + 9.5 + 10 s
  EXPECT_EQ(cells_within_budget(candidates, 0.02, 0.95, 12), (std::vector<int>{2, 4}));
  // None reaches the width in 1.9 s: one round each for the nearest whose round fits.
  EXPECT_EQ(cells_within_budget(candidates, 0.02, 0.95, 1.9), (std::vector<int>{1, 4}));  // 0.5 + 1 s
  EXPECT_EQ(cells_within_budget(candidates, 0.02, 0.95, 1.2), (std::vector<int>{4}));
  EXPECT_EQ(cells_within_budget(candidates, 0.02, 0.95, 0.4), (std::vector<int>{}));  // no round fits
  EXPECT_TRUE(cells_within_budget({}, 0.02, 0.95, 100).empty());
}

// The budget's choice under the null, simulated as the width rule above: cells of several
// noise scales and costs, rounds given by cells_within_budget until it gives none. False
// calls stay within 1 - confidence; most cells resolve (same at ±E, or called).
TEST(AdaptiveRoundsSimulation, ABudgetKeepsFalseCallsWithinTheConfidence) {
  // Arithmetic on simulated rounds, the same on every architecture: the native suite checks it
  // in seconds, qemu took 142 s and 126 s.
  ABENCH_SKIP_UNDER_EMULATION("a simulation of the statistics, whose answer does not depend on the CPU");
  if (testing::linked_with_address_sanitizer())
    GTEST_SKIP()
        << "the plain build runs this simulation: the arithmetic is the same sanitized, and takes 15-19 s there";
  for (Noise noise : {Noise::normal, Noise::laplace, Noise::skewed, Noise::heavy}) {
    std::mt19937_64 rng(21 + static_cast<int>(noise));
    std::uniform_real_distribution<double> log_scale(std::log(0.001), std::log(0.05)), cost(0.5, 2.0);
    constexpr int kMatrices = 100, kMatrixCells = 100;
    constexpr double kWidth = 0.03;
    long calls = 0, resolved = 0;
    for (int matrix = 0; matrix < kMatrices; ++matrix) {
      struct SimCell {
        double scale, seconds;
        std::vector<double> d;
      };
      std::vector<SimCell> cells;
      double seconds_left = 0;
      for (int c = 0; c < kMatrixCells; ++c) {
        SimCell cell{std::exp(log_scale(rng)), cost(rng), {}};
        for (int r = 0; r < kStartRounds; ++r) cell.d.push_back(draw(noise, cell.scale, rng));
        seconds_left += 2 * kStartRounds * cell.seconds;  // a budget of twice the plan's time
        cells.push_back(std::move(cell));
      }
      auto interval_of = [](const SimCell& cell) { return sign_interval(cell.d, kConfidence); };
      auto width_of = [](const ShiftInterval& i) { return i.reached ? std::exp(i.high) - std::exp(i.low) : INFINITY; };
      while (true) {
        std::vector<RoundCandidate> candidates;
        for (int c = 0; c < kMatrixCells; ++c) {
          const double width = width_of(interval_of(cells[static_cast<std::size_t>(c)]));
          const int rounds = static_cast<int>(cells[static_cast<std::size_t>(c)].d.size());
          if (needs_another_round(width, rounds, {kWidth, kBudgetMaxRounds, kConfidence}))
            candidates.push_back({c, rounds, robust_spread(cells[static_cast<std::size_t>(c)].d),
                                  cells[static_cast<std::size_t>(c)].seconds});
        }
        const std::vector<int> chosen = cells_within_budget(candidates, kWidth, kConfidence, seconds_left);
        if (chosen.empty()) break;
        for (int c : chosen) {
          SimCell& cell = cells[static_cast<std::size_t>(c)];
          cell.d.push_back(draw(noise, cell.scale, rng));
          seconds_left -= cell.seconds;
        }
      }
      for (const SimCell& cell : cells) {
        const ShiftInterval i = interval_of(cell);
        const bool called = i.reached && (i.low > 0 || i.high < 0);
        calls += called;
        resolved += called || (i.reached && std::exp(i.high) - 1 <= kWidth && std::exp(i.low) - 1 >= -kWidth);
      }
    }
    const double cells = kMatrices * kMatrixCells;
    std::printf("noise %d: budget of twice the plan, width 3%%: false calls %.2f%%, resolved %.1f%%\n",
                static_cast<int>(noise), 100 * calls / cells, 100 * resolved / cells);
    EXPECT_LE(calls / cells, 1 - kConfidence) << "noise " << static_cast<int>(noise);
    EXPECT_GT(resolved / cells, 0.5) << "noise " << static_cast<int>(noise);
  }
}

// An interrupted compare that kept one side's process of a round (between the two reports of a
// paced pair) gets the other side's before any round is added: the pair is whole again.
TEST(AdaptiveRounds, ARoundOneSideOfAPairLacksIsRunForThatSideFirst) {
  Matrix m = testing::small_matrix({"system"}, 7, {64}, {1});
  m.workloads = {Workload::allocate};
  m.protocol.fresh_process_per_cell = true;
  m.protocol.seed = 9;  // the plan's seed, as load_measure_matrix draws it: added rounds use it too
  Variant before, after;
  before.backend = after.backend = "system";
  after.name = "after";
  RunResults results = planned(m, make_compare_plan(m, {before}, {after}, m.protocol.seed));
  results.protocol.processes = 6;  // the seventh round stands for one added adaptively
  testing::FakeLauncher launcher;
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  run_plan(results, launcher, hooks);
  CellRecord& candidate = results.cells[static_cast<std::size_t>(results.plan.partner[0])];
  ASSERT_EQ(candidate.processes.size(), 7u);
  const ProcessMeasurement dropped = candidate.processes.back();
  candidate.processes.pop_back();  // as if interrupted before its report
  const std::size_t launches = launcher.requests.size();
  run_adaptive_rounds(results, {10.0, 24, 0.95}, launcher, hooks, std::chrono::steady_clock::now(),
                      [](const RoundAnnouncement&) { ADD_FAILURE() << "no cell needed a round"; });
  ASSERT_EQ(launcher.requests.size(), launches + 1);
  EXPECT_EQ(launcher.requests.back().cells.at(0).id, results.plan.partner[0]);
  ASSERT_EQ(candidate.processes.size(), 7u);
  EXPECT_EQ(candidate.processes.back().round, dropped.round);
  EXPECT_EQ(results.workers.back().job.seed, results.workers[results.workers.size() - 3].job.seed) << "the pair's seed";
}

TEST(ResultSaver, WritesBetweenWorkersAtMostOnceAnIntervalAndWhenAsked) {
  testing::TempDir dir;
  const Matrix m = testing::small_matrix({"system"}, 1);
  RunResults results = planned(m, make_plan(m, 1));
  lay_out_cells(results);
  const auto file = (dir.path() / "results.json").string();
  ResultSaver saver(dir.path(), 3600);
  saver.between_workers(results);
  EXPECT_FALSE(std::filesystem::exists(file));  // nothing changed
  results.run_id = "first";
  saver.changed();
  saver.between_workers(results);
  EXPECT_EQ(read_json_file(file, "test").at("run_id"), "first");
  results.run_id = "second";
  saver.changed();
  saver.between_workers(results);  // within the interval: not yet
  EXPECT_EQ(read_json_file(file, "test").at("run_id"), "first");
  saver.save(results);
  EXPECT_EQ(read_json_file(file, "test").at("run_id"), "second");
  ResultSaver nowhere(dir.path() / "missing" / "dir");
  nowhere.changed();
  EXPECT_THROW(nowhere.between_workers(results), EnvironmentError);
}

// The orchestrator offers a quiet moment before every timed worker it starts, never while one
// runs: the saver writes there and only there.
TEST(ResultSaver, TheOrchestratorOffersAMomentBeforeEachTimedWorker) {
  Matrix m = testing::small_matrix({"system", "mimalloc"}, 3, {64}, {1});
  RunResults results = planned(m, make_plan(m, 3));
  testing::FakeLauncher launcher;
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  std::vector<std::size_t> launched_at;
  hooks.between_workers = [&](const RunResults&) { launched_at.push_back(launcher.launched.size()); };
  run_plan(results, launcher, hooks);
  std::vector<std::size_t> expected;
  for (std::size_t k = 0; k <= launcher.launched.size(); ++k) expected.push_back(k);
  EXPECT_EQ(launched_at, expected);  // before each of the 6 workers, and once at the end
}

}  // namespace
}  // namespace abench
