#include "src/verdict/change_rule.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "src/stats/rank_intervals.h"
#include "src/stats/statistics.h"

namespace abench {
namespace {

// Each process's median, on a log scale; false when a figure cannot be part of a ratio.
bool log_medians(const ProcessSamples& side, std::vector<double>& out) {
  for (const auto& samples : side) {
    if (samples.empty()) return false;
    const double m = median(samples);
    if (!(m > 0) || !std::isfinite(m)) return false;
    out.push_back(std::log(m));
  }
  return !out.empty();
}

// Round r's d from two paced processes: the mean of two medians of log(after_k / before_k),
// one over the pairs of samples k in which one side led and one over those the other side
// led; none when a sample cannot be part of a ratio. Pairs alternate which side leads
// (docs/protocol.md, "Paced pairs"), and the side that goes second pays for following the
// other's batch, so the ratios alternate in sign by that cost (docs/decisions.md, "The second
// side of a paced pair"). Each order's median has the cost with one sign and the mean of the
// two cancels it; each is still a median, so an outlying sample moves it a rank.
std::optional<double> paced_round_difference(const std::vector<double>& before, const std::vector<double>& after) {
  const std::size_t n = std::min(before.size(), after.size());
  std::array<std::vector<double>, 2> by_leader;
  for (std::size_t k = 0; k < n; ++k) {
    if (!(before[k] > 0) || !(after[k] > 0) || !std::isfinite(before[k]) || !std::isfinite(after[k]))
      return std::nullopt;
    by_leader[k % 2].push_back(std::log(after[k] / before[k]));
  }
  if (by_leader[0].empty()) return std::nullopt;
  if (by_leader[1].empty()) return by_leader[0][0];
  return (median(by_leader[0]) + median(by_leader[1])) / 2;
}

// d_r = after_r - before_r (logs) for every round both sides ran exactly once in; false
// unless the two sides ran in exactly the same rounds.
bool differences_by_round(const CellSides& s, const std::vector<double>& before, const std::vector<double>& after,
                          std::vector<double>& d) {
  if (s.before_rounds.size() != before.size() || s.after_rounds.size() != after.size() || before.size() != after.size())
    return false;
  std::map<int, std::size_t> before_of_round, after_of_round;
  for (std::size_t i = 0; i < before.size(); ++i) before_of_round[s.before_rounds[i]] = i;
  for (std::size_t i = 0; i < after.size(); ++i) after_of_round[s.after_rounds[i]] = i;
  if (before_of_round.size() != before.size() || after_of_round.size() != after.size()) return false;
  for (const auto& [round, b] : before_of_round) {
    const auto a = after_of_round.find(round);
    if (a == after_of_round.end()) return false;
    const std::optional<double> by_samples =
        s.samples_paired ? paced_round_difference(s.before[b], s.after[a->second]) : std::nullopt;
    d.push_back(by_samples ? *by_samples : after[a->second] - before[b]);
  }
  return true;
}

std::string percent(double fraction) { return fmt::format("{:.1f}%", fraction * 100); }

}  // namespace

std::string_view name_of(Call call) {
  switch (call) {
    case Call::slower: return "slower";
    case Call::faster: return "faster";
    case Call::same: return "same";
    case Call::unclear: return "unclear";
    case Call::undecided: return "undecided";
  }
  return "?";
}

int rounds_needed(double confidence) { return min_rounds_for(confidence); }

Judgement judge_change(const CellSides& sides, double confidence, double bar, double margin) {
  Judgement j;
  std::vector<double> before, after;
  if (!log_medians(sides.before, before) || !log_medians(sides.after, after)) {
    j.reason = "a process figure that is zero, negative, not a number or missing: no ratio to judge";
    return j;
  }
  std::vector<double> d;
  j.paired = differences_by_round(sides, before, after, d);
  j.replicates = j.paired ? static_cast<int>(d.size()) : static_cast<int>(std::min(before.size(), after.size()));
  if (j.paired) j.spread = robust_spread(d);
  const ShiftInterval shift = j.paired ? sign_interval(d, confidence) : rank_sum_interval(before, after, confidence);
  j.change = std::expm1(shift.estimate);
  if (sides.exact_metric) {
    // A count that repeats exactly has no sampling error: the interval is the range of
    // the differences (round by round, or over all pairs of processes), and it is all the
    // confidence there is to have.
    const auto [d_low, d_high] = std::minmax_element(d.begin(), d.end());
    const auto [b_low, b_high] = std::minmax_element(before.begin(), before.end());
    const auto [a_low, a_high] = std::minmax_element(after.begin(), after.end());
    j.low = std::expm1(j.paired ? *d_low : *a_low - *b_high);
    j.high = std::expm1(j.paired ? *d_high : *a_high - *b_low);
    j.coverage = 1;
  } else {
    j.low = std::expm1(shift.low);
    j.high = std::expm1(shift.high);
    j.coverage = shift.coverage;
    if (!shift.reached) {
      j.reason = j.paired ? fmt::format("{} round{} cannot reach {} (at most {}): use --processes {}", j.replicates,
                                        j.replicates == 1 ? "" : "s", percent(confidence), percent(shift.coverage),
                                        min_rounds_for(confidence))
                          : fmt::format(
                                "{} and {} processes of different runs cannot reach {} (at most {}): use "
                                "--processes {} on both",
                                before.size(), after.size(), percent(confidence), percent(shift.coverage),
                                min_processes_for(confidence));
      return j;
    }
  }
  j.call = call_of(j.change, j.low, j.high, bar, margin);
  j.detectable = detectable_change(j.change, j.low, j.high, bar);
  return j;
}

Call call_of(double change, double low, double high, double bar, double margin) {
  if (low > 0 && change >= bar) return Call::slower;
  if (high < 0 && -change >= bar) return Call::faster;
  if (low >= -margin && high <= margin) return Call::same;
  return Call::unclear;
}

double detectable_change(double change, double low, double high, double bar) {
  // On the log scale the interval is the change with the noise around it: a true change D
  // moves it by log(1 + D), off 0 once that exceeds the noise on the side it moves towards.
  const double centre = std::log1p(change);
  const double slower = std::expm1(centre - std::log1p(low));
  const double faster = -std::expm1(-(std::log1p(high) - centre));
  return std::max({slower, faster, bar});
}

}  // namespace abench
