#include "src/explain/work_figures.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace abench {

double WorkFigures::at(std::string_view figure) const {
  const auto found = per_op.find(figure);
  return found == per_op.end() ? 0 : found->second;
}

std::optional<WorkFigures> work_figures_of(const CellRecord& instrumented) {
  const CellSummary& s = instrumented.summary;
  if (s.status != CellStatus::ok || !s.ns_per_op) return std::nullopt;  // ns_per_op: instructions here
  WorkFigures w;
  w.per_op["instructions"] = *s.ns_per_op;
  for (std::string_view name : kWorkFigureNames)
    if (name != "instructions") {
      const auto found = s.counters_per_op.find(std::string(name));
      if (found == s.counters_per_op.end()) return std::nullopt;  // counted without the simulators
      w.per_op[std::string(name)] = found->second;
    }
  if (s.process_min_ns && s.process_max_ns && *s.ns_per_op > 0)
    w.repeatability = (*s.process_max_ns - *s.process_min_ns) / *s.ns_per_op;
  return w;
}

std::string why_no_work_figures(const CellRecord* instrumented) {
  if (instrumented == nullptr) return "not counted";
  if (!instrumented->refusal.empty()) return instrumented->refusal;
  if (!instrumented->summary.error.empty()) return instrumented->summary.error;
  if (!instrumented->failures.empty()) return instrumented->failures.front();
  if (instrumented->summary.status == CellStatus::ok)
    return "counted without callgrind's cache and branch simulators (a worker built before --explain: rebuild it)";
  return "not counted";
}

std::optional<double> relative_change(double before, double after) {
  if (before == 0) return after == 0 ? std::optional<double>(0) : std::nullopt;
  return after / before - 1;
}

namespace {

// The simulated misses that moved by kMissesMoved or more a operation, or "".
std::string misses_moved(const WorkFigures& before, const WorkFigures& after) {
  std::string moved;
  for (const auto& [figure, words] : kMissFigures)
    if (const double delta = after.at(figure) - before.at(figure); std::abs(delta) >= kMissesMoved)
      moved += fmt::format("{}{} {:+.2f}/op", moved.empty() ? "" : ", ", words, delta);
  return moved;
}

// The time against a work change w: "" when its interval holds time scaled by the work
// (1 + w), else how far above or below that it lies.
std::string weighed(const TimeChange& time, double w, const WorkFigures& before, const WorkFigures& after) {
  const auto beyond = [&](double t) { return (1 + t) / (1 + w) - 1; };
  if (time.move == TimeMove::none || (beyond(time.low) <= 0 && beyond(time.high) >= 0)) return "";
  const double left = beyond(time.change);
  std::string text =
      fmt::format("time {:.1f}% {} what it explains", 100 * std::abs(left), left > 0 ? "above" : "below");
  if (const std::string moved = misses_moved(before, after); !moved.empty()) text += ": " + moved;
  return text;
}

}  // namespace

std::string reading_of(const TimeChange& time, const WorkFigures& before, const WorkFigures& after) {
  const double bar = std::max({kWorkThreshold, before.repeatability, after.repeatability});
  if (const auto change = relative_change(before.at("instructions"), after.at("instructions"));
      change && std::abs(*change) > bar) {
    const std::string work = *change > 0 ? "more work" : "less work";
    const std::string rest = weighed(time, *change, before, after);
    return rest.empty() ? work : fmt::format("{} ({:+.1f}% instructions; {})", work, 100 * *change, rest);
  }
  if (time.move == TimeMove::none) return "";
  const std::string text = time.move == TimeMove::slower ? "same work, slower" : "same work, faster";
  const std::string moved = misses_moved(before, after);
  return moved.empty() ? text : text + " (" + moved + ")";
}

std::string reading_rule_text() {
  return fmt::format(
      "more work / less work: instructions per operation changed by more than {:g}% (or by more than "
      "the instrumented processes of either side lay apart, where that is more); where the time was called "
      "and its interval leaves the time the instructions' change would make (time x (1 + that change)), how "
      "far above or below it the time lies, with the misses that moved; same work, slower / "
      "same work, faster: the time was called slower or faster and the instructions did not move, with "
      "the simulated misses that moved by at least {:g} per operation; none (-): neither",
      kWorkThreshold * 100, kMissesMoved);
}

}  // namespace abench
