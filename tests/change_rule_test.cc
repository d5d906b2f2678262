// The one rule, table-driven, on simulated cells whose noise is as unkind as this machine's:
// rounds that drift by 8% as a whole, processes that land in a slow mode one time in five,
// an order effect within the round, and outlying samples. The rule's claims (its false-call
// rate holds at every number of rounds; a real shift is found; too few rounds say so) are
// checked here, not argued.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "src/verdict/gate.h"
#include "src/stats/rank_intervals.h"
#include "src/verdict/change_rule.h"
#include "src/verdict/pairing.h"

namespace abench {
namespace {

struct Noise {
  double round_drift = 0.08;   // the whole round, both sides: cancels when paired
  double process = 0.015;      // each process's own offset
  double slow_mode = 0.20;     // chance a process lands in a slow mode...
  double slow_by = 0.15;       // ...this much slower
  double order_effect = 0.01;  // the round's first process is slower
  double outliers = 0.05;      // chance a sample is 30% slow
};

std::vector<double> process_samples(double level, const Noise& n, std::mt19937_64& rng) {
  std::normal_distribution<double> within(0, 0.005);
  std::bernoulli_distribution outlier(n.outliers);
  std::vector<double> samples;
  for (int s = 0; s < 11; ++s) samples.push_back(level * std::exp(within(rng)) * (outlier(rng) ? 1.3 : 1.0));
  return samples;
}

double process_level(const Noise& n, std::mt19937_64& rng) {
  std::normal_distribution<double> own(0, n.process);
  std::bernoulli_distribution slow(n.slow_mode);
  return std::exp(own(rng)) * (slow(rng) ? 1 + n.slow_by : 1.0);
}

// One cell of an interleaved run: `rounds` pairs, the after side multiplied by `shift`;
// rounds numbered from `first_round`, the first side alternating as the orchestrator does.
CellSides interleaved_cell(int rounds, double shift, const Noise& n, std::mt19937_64& rng, int first_round = 1) {
  std::normal_distribution<double> drift(0, n.round_drift);
  CellSides sides;
  for (int r = 0; r < rounds; ++r) {
    const double round = 100 * std::exp(drift(rng));
    const bool before_first = (first_round + r) % 2 == 1;
    const double before = round * process_level(n, rng) * (before_first ? 1 + n.order_effect : 1.0);
    const double after = round * process_level(n, rng) * (before_first ? 1.0 : 1 + n.order_effect) * shift;
    sides.before.push_back(process_samples(before, n, rng));
    sides.after.push_back(process_samples(after, n, rng));
    sides.before_rounds.push_back(first_round + r);
    sides.after_rounds.push_back(first_round + r);
  }
  return sides;
}

// Two sides of different runs: every process drifts on its own, nothing is paired.
CellSides separate_runs_cell(int processes, double shift, const Noise& n, std::mt19937_64& rng) {
  std::normal_distribution<double> drift(0, n.round_drift);
  CellSides sides;
  for (int p = 0; p < processes; ++p) {
    sides.before.push_back(process_samples(100 * std::exp(drift(rng)) * process_level(n, rng), n, rng));
    sides.after.push_back(process_samples(100 * std::exp(drift(rng)) * process_level(n, rng) * shift, n, rng));
  }
  return sides;
}

std::string fmt_case(int rounds, double shift) {
  return "found_of_500_at_" + std::to_string(rounds) + "_rounds_shift_" + std::to_string(shift);
}

int calls_in(int cells, std::uint64_t seed, const std::function<CellSides(std::mt19937_64&)>& make, double bar) {
  std::mt19937_64 rng(seed);
  int calls = 0;
  for (int c = 0; c < cells; ++c) {
    const Judgement j = judge_change(make(rng), 0.95, bar);
    EXPECT_NE(j.call, Call::undecided) << j.reason;
    calls += j.call == Call::slower || j.call == Call::faster;
  }
  return calls;
}

// With nothing changed, a 95% rule calls at most about 5% of cells; an exact one calls its
// exact level 1 - coverage (3.1% at 6 rounds, 1.6% at 7, 0.8% at 8, 3.9% at 12, 4.1% at 20),
// whatever the noise.
TEST(ChangeRule, FalseCallRateHoldsAtEveryNumberOfRounds) {
  const Noise noise;
  constexpr int kCells = 2000;
  for (int rounds : {6, 7, 8, 12, 20}) {
    std::mt19937_64 probe(1);
    const double level = 1 - judge_change(interleaved_cell(rounds, 1.0, noise, probe), 0.95, 0).coverage;
    const int calls = calls_in(
        kCells, 100 + static_cast<std::uint64_t>(rounds),
        [&](std::mt19937_64& rng) { return interleaved_cell(rounds, 1.0, noise, rng); }, 0);
    const double rate = static_cast<double>(calls) / kCells, sd = std::sqrt(level * (1 - level) / kCells);
    RecordProperty("rate_at_" + std::to_string(rounds) + "_rounds", std::to_string(rate));
    RecordProperty("level_at_" + std::to_string(rounds) + "_rounds", std::to_string(level));
    EXPECT_LE(level, 0.05) << rounds;
    EXPECT_NEAR(rate, level, 4 * sd) << rounds << " rounds: " << calls << " calls of " << kCells;
    if (rounds == 6) {
      EXPECT_GE(rate, 0.02);  // compare's default is not so timid it never calls
    }
    EXPECT_LE(rate, 0.07) << rounds;
  }
}

TEST(ChangeRule, FalseCallRateHoldsForSidesOfDifferentRuns) {
  const Noise noise;
  constexpr int kCells = 2000;
  for (int processes : {4, 5, 8}) {
    const int calls = calls_in(
        kCells, 300 + static_cast<std::uint64_t>(processes),
        [&](std::mt19937_64& rng) { return separate_runs_cell(processes, 1.0, noise, rng); }, 0);
    RecordProperty("calls_of_2000_unpaired_" + std::to_string(processes), calls);
    EXPECT_LE(static_cast<double>(calls) / kCells, 0.05 + 4 * std::sqrt(0.05 * 0.95 / kCells)) << processes;
  }
}

// same and unclear: a change not called is `same` only when its whole interval lies within
// the margin; the margin never turns a call into `same`.
TEST(ChangeRule, AnIntervalWithinTheMarginIsSameAndOneBeyondItIsUnclear) {
  CellSides sides;
  for (int r = 1; r <= 6; ++r) {
    sides.before.push_back({100, 100.1, 99.9});
    sides.after.push_back({100.5 + 0.01 * r, 100.6, 100.4});  // +0.5% in every round
    sides.before_rounds.push_back(r);
    sides.after_rounds.push_back(r);
  }
  const Judgement within = judge_change(sides, 0.95, 0.01, 0.03);
  EXPECT_EQ(within.call, Call::same);
  EXPECT_GE(within.low, -0.03);
  EXPECT_LE(within.high, 0.03);
  EXPECT_EQ(judge_change(sides, 0.95, 0.01, 0.002).call, Call::unclear);  // the interval reaches past +0.2%
  EXPECT_EQ(judge_change(sides, 0.95, 0.004, 0.03).call, Call::slower);   // a call stays a call
  EXPECT_EQ(call_of(0.0, -0.02, 0.04, 0.01, 0.03), Call::unclear);
  EXPECT_EQ(call_of(0.0, -0.04, 0.02, 0.01, 0.03), Call::unclear);
  EXPECT_EQ(call_of(0.0, -0.03, 0.03, 0.01, 0.03), Call::same);
}

// The detectable change: a change that size, with the interval's noise around it, moves the
// interval off 0; never below the bar.
TEST(ChangeRule, TheDetectableChangeIsTheIntervalsReachFromItsChange) {
  EXPECT_NEAR(detectable_change(0.0, -0.02, 0.02, 0.01), 0.02 / 0.98, 1e-12);  // the larger side: 1/0.98 - 1
  EXPECT_NEAR(detectable_change(0.0, -0.01, 0.05, 0.01), 1 - 1 / 1.05, 1e-12);
  EXPECT_NEAR(detectable_change(0.0, -0.05, 0.01, 0.01), 1 / 0.95 - 1, 1e-12);
  EXPECT_EQ(detectable_change(0.0, -0.001, 0.001, 0.01), 0.01);  // the bar
  // Planted: cells whose shift is the detectable change of their unchanged twin are called
  // about half the time or more (the interval moves by the shift; its noise is its own).
  const Noise noise;
  std::mt19937_64 rng(29);
  int found = 0, trials = 400;
  for (int t = 0; t < trials; ++t) {
    std::mt19937_64 twin = rng;
    const Judgement unchanged = judge_change(interleaved_cell(12, 1.0, noise, twin), 0.95, 0.0);
    const double shift = 1 + unchanged.detectable * 1.5;
    found += judge_change(interleaved_cell(12, shift, noise, rng), 0.95, 0.0).call == Call::slower;
  }
  EXPECT_GT(found, trials / 2);
}

// Equivalence claims are as safe as calls: with a true change beyond the margin, `same` is
// called at most as often as the interval misses (one side of it: 2.5% at 95%), at every
// number of rounds.
TEST(ChangeRule, SameIsRarelyCalledWhenTheTrueChangeIsBeyondTheMargin) {
  Noise quiet;  // an interval narrow enough to fit inside the margin at all
  quiet.round_drift = 0.02;
  quiet.slow_mode = 0.05;
  quiet.slow_by = 0.05;
  std::mt19937_64 rng(2029);
  for (int rounds : {6, 12, 24}) {
    int same = 0, same_when_unchanged = 0;
    const int trials = 2000;
    for (int t = 0; t < trials; ++t) {
      same += judge_change(interleaved_cell(rounds, 1.035, quiet, rng), 0.95, 0.01, 0.03).call == Call::same;
      same_when_unchanged +=
          judge_change(interleaved_cell(rounds, 1.0, quiet, rng), 0.95, 0.01, 0.03).call == Call::same;
    }
    EXPECT_LE(same, trials * 0.025 + 3 * std::sqrt(trials * 0.025)) << rounds << " rounds";
    if (rounds == 24) {
      EXPECT_GT(same_when_unchanged, trials / 2) << "an unchanged cell is found same with enough rounds";
    }
  }
}

// The bar: a change the rounds agree on but smaller than the bar is never called; one at
// least the bar is. Compare's minimum effect and the gate's threshold both go through it.
TEST(ChangeRule, AChangeBelowTheBarIsNotCalled) {
  CellSides sides;
  for (int r = 1; r <= 6; ++r) {
    sides.before.push_back({100, 100.1, 99.9});
    sides.after.push_back({100.5 + 0.01 * r, 100.6, 100.4});  // +0.5% in every round
    sides.before_rounds.push_back(r);
    sides.after_rounds.push_back(r);
  }
  EXPECT_EQ(judge_change(sides, 0.95, 0).call, Call::slower);
  EXPECT_EQ(judge_change(sides, 0.95, 0.004).call, Call::slower);
  const Judgement below = judge_change(sides, 0.95, 0.01);
  EXPECT_TRUE(not_called(below.call));
  EXPECT_GT(below.low, 0);  // significant, only too small
  // Over many unchanged cells the bar only takes calls away.
  const Noise noise;
  auto make = [&](std::mt19937_64& rng) { return interleaved_cell(6, 1.0, noise, rng); };
  EXPECT_LT(calls_in(2000, 7, make, 0.01), calls_in(2000, 7, make, 0));
}

TEST(ChangeRule, FindsARealShiftThroughRoundDrift) {
  Noise steady;  // round drift stays (8%): pairing cancels it
  steady.slow_mode = 0;
  steady.process = 0.02;
  struct Case {
    int rounds;
    double shift;
    double at_least;  // fraction of cells called in the right direction
  };
  for (const Case& c : {Case{6, 1.10, 0.95}, Case{6, 0.90, 0.95}, Case{12, 1.05, 0.90}, Case{20, 1.03, 0.80}}) {
    std::mt19937_64 rng(11);
    int right = 0;
    for (int cell = 0; cell < 500; ++cell) {
      const Judgement j = judge_change(interleaved_cell(c.rounds, c.shift, steady, rng), 0.95, 0.01);
      right += j.call == (c.shift > 1 ? Call::slower : Call::faster);
      EXPECT_LE(j.low, j.change);
      EXPECT_GE(j.high, j.change);
    }
    RecordProperty(fmt_case(c.rounds, c.shift), right);
    EXPECT_GE(right, c.at_least * 500) << c.rounds << " rounds, shift " << c.shift;
  }
  // Unpaired, the same 8% drift hides a 5% shift from 5 processes a side most of the time.
  std::mt19937_64 rng(12);
  int found = 0;
  for (int cell = 0; cell < 200; ++cell)
    found += judge_change(separate_runs_cell(5, 1.05, steady, rng), 0.95, 0.01).call == Call::slower;
  EXPECT_LT(found, 100);
}

TEST(ChangeRule, TooFewRoundsSayHowManyAreNeeded) {
  std::mt19937_64 rng(3);
  const Judgement three = judge_change(interleaved_cell(3, 1.5, Noise{}, rng), 0.95, 0.01);
  EXPECT_EQ(three.call, Call::undecided);
  EXPECT_TRUE(three.paired);
  EXPECT_EQ(three.reason, "3 rounds cannot reach 95.0% (at most 75.0%): use --processes 6");
  const Judgement unpaired = judge_change(separate_runs_cell(3, 1.5, Noise{}, rng), 0.95, 0.01);
  EXPECT_EQ(unpaired.call, Call::undecided);
  EXPECT_NE(unpaired.reason.find("3 and 3 processes of different runs cannot reach 95.0%"), std::string::npos);
  EXPECT_NE(unpaired.reason.find("use --processes 4"), std::string::npos);
  EXPECT_EQ(judge_change(interleaved_cell(7, 1.5, Noise{}, rng), 0.99, 0.01).call, Call::undecided);
  EXPECT_EQ(rounds_needed(0.99), 8);
  EXPECT_EQ(unpaired.false_call_rate(), 0);
}

TEST(ChangeRule, PairsByRoundWhateverTheOrderOfTheProcesses) {
  std::mt19937_64 rng(5);
  CellSides sides = interleaved_cell(6, 1.04, Noise{}, rng);
  const Judgement in_order = judge_change(sides, 0.95, 0.01);
  std::swap(sides.after[0], sides.after[3]);
  std::swap(sides.after_rounds[0], sides.after_rounds[3]);
  const Judgement shuffled = judge_change(sides, 0.95, 0.01);
  EXPECT_TRUE(shuffled.paired);
  EXPECT_EQ(shuffled.change, in_order.change);
  EXPECT_EQ(shuffled.low, in_order.low);
  // Rounds that do not match, or none (sides of different runs): unpaired.
  sides.after_rounds[0] = 99;
  EXPECT_FALSE(judge_change(sides, 0.95, 0.01).paired);
  sides.before_rounds.clear();
  sides.after_rounds.clear();
  EXPECT_FALSE(judge_change(sides, 0.95, 0.01).paired);
}

TEST(ChangeRule, ExactCountsNeedNoRounds) {
  CellSides sides;
  sides.exact_metric = true;
  sides.before = {{1000}};
  sides.after = {{1006}};
  Judgement j = judge_change(sides, 0.95, 0.005);
  EXPECT_EQ(j.call, Call::slower);
  EXPECT_NEAR(j.change, 0.006, 1e-12);
  EXPECT_EQ(j.coverage, 1);
  EXPECT_EQ(j.false_call_rate(), 0);
  EXPECT_TRUE(not_called(judge_change(sides, 0.95, 0.01).call));  // below the bar
  sides.after = {{1000}};
  EXPECT_TRUE(not_called(judge_change(sides, 0.95, 0).call));
}

TEST(ChangeRule, FiguresThatAreNoTimesAreUndecided) {
  for (double bad : {0.0, -5.0, std::nan(""), HUGE_VAL}) {
    CellSides sides;
    sides.before = {{100}, {100}, {100}, {100}};
    sides.after = {{bad}, {100}, {100}, {100}};
    const Judgement j = judge_change(sides, 0.95, 0.01);
    EXPECT_EQ(j.call, Call::undecided) << bad;
    EXPECT_NE(j.reason.find("no ratio to judge"), std::string::npos);
  }
}

// The gate over a family: 144 unchanged cells, 6 rounds, the default 5% threshold, and the
// confirmation the side-by-side gate makes (a regressed cell stays one only when a second
// run alone and both runs' rounds pooled call it one; src/flow/gate_flow.cc). Every cell here has
// processes that jump between two modes 15% apart, worse than any cell measured here, and
// no noise floor lifts its threshold. Over 200 such gates, at most 5% may fail anywhere;
// without the replication, about 20% did.
TEST(ChangeRule, TheGatesFamilyOfCellsRarelyFailsWithNothingChanged) {
  const Noise noise;
  std::mt19937_64 rng(21);
  int gates_failed = 0, first_run_regressions = 0;
  for (int gate = 0; gate < 200; ++gate) {
    std::vector<CellPair> pairs;
    for (int cell = 0; cell < 144; ++cell) {
      const CellSides s = interleaved_cell(6, 1.0, noise, rng);
      CellPair p;
      p.key = "system/exact/allocate/64/1:256/" + std::to_string(cell);
      p.workload = "allocate";
      p.before = s.before;
      p.after = s.after;
      p.before_rounds = s.before_rounds;
      p.after_rounds = s.after_rounds;
      pairs.push_back(std::move(p));
    }
    const GateVerdict first = evaluate_gate(pairs, GateRules{}, {}, VerdictSettings{});
    first_run_regressions += first.regressions;
    if (first.regressions == 0) continue;
    std::vector<CellPair> pooled, second;
    for (std::size_t c = 0; c < pairs.size(); ++c) {
      if (first.cells[c].outcome != GateOutcome::regression) continue;
      const CellSides more = interleaved_cell(6, 1.0, noise, rng, 7);
      CellPair again = pairs[c];
      again.before = more.before;
      again.after = more.after;
      again.before_rounds = more.before_rounds;
      again.after_rounds = more.after_rounds;
      second.push_back(again);
      CellPair p = pairs[c];
      p.before.insert(p.before.end(), more.before.begin(), more.before.end());
      p.after.insert(p.after.end(), more.after.begin(), more.after.end());
      p.before_rounds.insert(p.before_rounds.end(), more.before_rounds.begin(), more.before_rounds.end());
      p.after_rounds.insert(p.after_rounds.end(), more.after_rounds.begin(), more.after_rounds.end());
      pooled.push_back(std::move(p));
    }
    const GateVerdict on_pooled = evaluate_gate(pooled, GateRules{}, {}, VerdictSettings{});
    const GateVerdict on_second = evaluate_gate(second, GateRules{}, {}, VerdictSettings{});
    bool failed = false;
    for (std::size_t c = 0; c < pooled.size(); ++c)
      failed |= on_pooled.cells[c].outcome == GateOutcome::regression &&
                on_second.cells[c].outcome == GateOutcome::regression;
    gates_failed += failed;
  }
  RecordProperty("gates_failed_of_200", gates_failed);
  RecordProperty("first_run_regressions", first_run_regressions);
  EXPECT_LE(gates_failed, 10) << first_run_regressions << " regressions in first runs";
}

// --interleave batch: the two processes of a round take turns, so sample k of one side ran
// next to sample k of the other. What this machine does (measured, docs/statistics.md): a
// spell of slowness of up to 2x starts or ends in the middle of a round in about one round in
// three, and then one side's median can land in the slow spell and the other's in the fast.
// Each side keeps its process offset and slow mode. A batch taken right after the other
// side's costs kSwitchCost (its caches hold the other process's lines; measured median
// 0.2%, up to 5% in append cells).
constexpr double kSwitchCost = 0.005;
CellSides paced_cell(int rounds, double shift, const Noise& n, std::mt19937_64& rng) {
  std::normal_distribution<double> drift(0, n.round_drift), sample_noise(0, 0.01);
  std::bernoulli_distribution switches(0.3), outlier(n.outliers), slower_first(0.5);
  std::uniform_int_distribution<int> switch_at(0, 10);
  std::uniform_real_distribution<double> spell(1.2, 2.0);
  CellSides sides;
  sides.samples_paired = true;
  for (int r = 1; r <= rounds; ++r) {
    const double round = 100 * std::exp(drift(rng));
    const double before_level = round * process_level(n, rng), after_level = round * process_level(n, rng) * shift;
    const bool before_leads = r % 2 == 1;
    const bool has_switch = switches(rng), slow_then_fast = slower_first(rng);
    const int at = switch_at(rng);
    const double factor = spell(rng);
    // Turn t of 22 (ABBA): pair k is turns 2k and 2k+1, the leader alternating by pair.
    auto spell_at = [&](int turn) {
      if (!has_switch) return 1.0;
      const bool before_switch = turn < 2 * at + 1;  // the switch falls inside pair `at`
      return before_switch == slow_then_fast ? factor : 1.0;
    };
    // The side before the switch at its turn: the first of pair k leads when k is even.
    const auto before_at = [&](int turn) { return (turn % 2 == 0) == ((turn / 2 % 2 == 0) == before_leads); };
    const auto switch_cost = [&](int turn) {
      return turn == 0 || before_at(turn) != before_at(turn - 1) ? 1 + kSwitchCost : 1.0;
    };
    std::vector<double> before, after;
    for (int k = 0; k < 11; ++k) {
      const bool before_first = (k % 2 == 0) == before_leads;
      const int before_turn = 2 * k + (before_first ? 0 : 1), after_turn = 2 * k + (before_first ? 1 : 0);
      before.push_back(before_level * spell_at(before_turn) * switch_cost(before_turn) * std::exp(sample_noise(rng)) *
                       (outlier(rng) ? 1.3 : 1.0));
      after.push_back(after_level * spell_at(after_turn) * switch_cost(after_turn) * std::exp(sample_noise(rng)) *
                      (outlier(rng) ? 1.3 : 1.0));
    }
    sides.before.push_back(before);
    sides.after.push_back(after);
    sides.before_rounds.push_back(r);
    sides.after_rounds.push_back(r);
  }
  return sides;
}

// A spell that ends between the two sides' sixth samples: the medians fall on either side
// of it and call a 50% change; the samples' pair ratios see none.
TEST(ChangeRule, PacedRoundsAreJudgedSampleBySampleSoASpellMidRoundCancels) {
  CellSides sides;
  for (int r = 1; r <= 6; ++r) {
    sides.before.push_back({2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1});
    sides.after.push_back({2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1});
    sides.before_rounds.push_back(r);
    sides.after_rounds.push_back(r);
  }
  EXPECT_EQ(judge_change(sides, 0.95, 0.01).call, Call::faster);  // by the medians
  sides.samples_paired = true;
  const Judgement paced = judge_change(sides, 0.95, 0.01);
  EXPECT_TRUE(not_called(paced.call));
  EXPECT_NEAR(paced.change, 0, 1e-12);
  EXPECT_TRUE(paced.paired);
}

// The side that goes second in a pair of samples follows the other's batch and pays for it
// (here 2%), and pairs alternate the leader: the pair ratios alternate in sign by that cost
// and their median sits on whichever ratio falls between, here the first pair's (+1.5%, its
// noise). The mean of the two orders' medians cancels the cost: no change.
TEST(ChangeRule, PacedRoundsCancelTheCostOfFollowingTheOtherSidesBatch) {
  CellSides sides;
  sides.samples_paired = true;
  for (int r = 1; r <= 6; ++r) {
    std::vector<double> before(11, 100.0), after(11, 100.0);
    after[0] = 101.5;
    for (std::size_t k = 1; k < 11; ++k) (k % 2 == 1 ? before : after)[k] = 102;
    sides.before.push_back(before);
    sides.after.push_back(after);
    sides.before_rounds.push_back(r);
    sides.after_rounds.push_back(r);
  }
  const Judgement j = judge_change(sides, 0.95, 0.01);
  EXPECT_TRUE(not_called(j.call));
  EXPECT_NEAR(j.change, 0, 1e-12);
  // Before or after the first pair, the same samples say the same.
  for (auto& round : sides.after) round[0] = 100;
  EXPECT_NEAR(judge_change(sides, 0.95, 0.01).change, 0, 1e-12);
}

TEST(ChangeRule, PacedFalseCallRateHoldsAndAShiftIsFoundThroughSpells) {
  const Noise noise;
  constexpr int kCells = 2000;
  for (int rounds : {6, 12, 20}) {
    std::mt19937_64 probe(1);
    const double level = 1 - judge_change(paced_cell(rounds, 1.0, noise, probe), 0.95, 0).coverage;
    const int calls = calls_in(
        kCells, 500 + static_cast<std::uint64_t>(rounds),
        [&](std::mt19937_64& rng) { return paced_cell(rounds, 1.0, noise, rng); }, 0);
    const double rate = static_cast<double>(calls) / kCells, sd = std::sqrt(level * (1 - level) / kCells);
    RecordProperty("paced_rate_at_" + std::to_string(rounds) + "_rounds", std::to_string(rate));
    EXPECT_NEAR(rate, level, 4 * sd) << rounds << " rounds: " << calls << " calls of " << kCells;
    EXPECT_LE(rate, 0.07) << rounds;
  }
  // A 10% slowdown through the same spells, at compare's default of 6 rounds, with no slow
  // mode (the slow mode is a process's own: pacing cannot cancel it, rounds can).
  Noise steady = noise;
  steady.slow_mode = 0;
  const auto found = [&](bool by_samples) {
    std::mt19937_64 rng(77);
    int slower = 0;
    for (int c = 0; c < 500; ++c) {
      CellSides cell = paced_cell(6, 1.10, steady, rng);
      cell.samples_paired = by_samples;
      slower += judge_change(cell, 0.95, 0.01).call == Call::slower;
    }
    return slower;
  };
  const int by_samples = found(true), by_medians = found(false);
  RecordProperty("paced_found_of_500_by_samples", by_samples);
  RecordProperty("paced_found_of_500_by_medians", by_medians);
  // 490 and 446 of 500 (the median of all 11 pair ratios found 500: a median of each
  // leader's 5 or 6 ratios is the less robust to this model's 5% of 30% outliers, the price
  // of cancelling the cost of going second, which this model holds small).
  EXPECT_GE(by_samples, 475);
  EXPECT_LT(by_medians, by_samples - 30);
}

}  // namespace
}  // namespace abench
