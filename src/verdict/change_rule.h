// The one rule that decides every verdict: compare's faster/slower/~, the gate's
// regression/improvement/pass, and the change calibrate keeps as a noise floor
// (docs/statistics.md). Everything that judges a change calls judge_change.
//
// A cell's two sides are reduced to one figure a process (its median sample), on a log
// scale. When both sides ran in the same rounds of one interleaved run, round r's two
// processes are a pair and d_r = log(after_r / before_r); what the machine did during the
// round cancels in d_r. When the pair took turns batch by batch (--interleave batch),
// sample k of one side ran next to sample k of the other, and d_r is taken from the ratios
// log(after_rk / before_rk): a slow spell that starts mid-round cancels pair by pair, where
// it would flip which spell one side's median lands in. It is the mean of their median over
// the pairs one side led and their median over those the other led: the side that goes
// second follows the other's batch and pays for it, and the two orders cancel that. The change is the median of the d_r
// and its interval the exact sign-test interval (order statistics of the d_r): valid whatever the distribution of the
// noise, and one wild round moves it by one rank, not by its size. Sides of different runs
// share nothing round by round: the exact rank-sum interval over the two sets of process
// medians. Below the rounds a confidence needs, the judgement says so in words.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/stats/statistics.h"

namespace abench {

struct CellSides {
  ProcessSamples before, after;
  std::vector<int> before_rounds, after_rounds;  // each process's round; empty for sides of different runs
  bool exact_metric = false;    // a count that repeats exactly (instructions): no sampling error to bound
  bool samples_paired = false;  // paired rounds took turns batch by batch: samples pair index by index
};

// same: the whole interval lies within ±margin (the equivalence margin, compare's --detect:
// both one-sided tests at the confidence reject a change that large); unclear: neither called
// nor same, the interval reaching beyond the margin on a side (a change of that size could
// hide in it); undecided: too few rounds for an interval at the confidence.
enum class Call { slower, faster, same, unclear, undecided };
std::string_view name_of(Call call);
// Neither slower nor faster (same or unclear): nothing was called.
inline bool not_called(Call call) { return call == Call::same || call == Call::unclear; }

struct Judgement {
  Call call = Call::undecided;
  double change = 0;         // after/before - 1; positive: slower
  double low = 0, high = 0;  // the interval of the change
  double coverage = 0;       // the interval's exact coverage; 1 for an exact metric
  bool paired = false;       // by round
  int replicates = 0;        // rounds (paired), or the smaller side's processes
  std::string reason;        // why undecided: in words, with what to change
  // The smallest change this cell could have called at its final interval: a change of that
  // size, with the noise the interval shows around it, would move the interval off 0 (the
  // larger of the two sides; never below the bar). 0 when undecided.
  double detectable = 0;
  // How widely the round log ratios spread (robust_spread; 0 unpaired): how fast more
  // rounds would narrow the interval (src/run/adaptive_rounds.h).
  double spread = 0;
  // The chance of a slower/faster call on this cell were nothing changed (at most).
  double false_call_rate() const { return call == Call::undecided ? 0 : 1 - coverage; }
};

// `bar` is the smallest |change| ever called slower or faster: compare's minimum effect, or
// a gate cell's applied threshold (the larger of its threshold and k x its noise floor).
// A change is called when its interval excludes 0 and the change is at least the bar; a
// change not called is `same` when its interval lies within ±margin, else `unclear`.
Judgement judge_change(const CellSides& sides, double confidence, double bar, double margin = 0);
// The call of a change whose interval reached the confidence: the last step of
// judge_change, and how a reader of compare.json checks the verdicts it was handed.
Call call_of(double change, double low, double high, double bar, double margin);
// Judgement::detectable of an interval (change, low, high) at the bar.
double detectable_change(double change, double low, double high, double bar);

// The fewest rounds a side of an interleaved run needs for a verdict at `confidence`.
int rounds_needed(double confidence);

}  // namespace abench
