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

std::string reading_of(TimeMove time, const WorkFigures& before, const WorkFigures& after) {
  const double bar = std::max({kWorkThreshold, before.repeatability, after.repeatability});
  if (const auto change = relative_change(before.at("instructions"), after.at("instructions")); change) {
    if (*change > bar) return "more work";
    if (*change < -bar) return "less work";
  }
  if (time == TimeMove::none) return "";
  std::string text = time == TimeMove::slower ? "same work, slower" : "same work, faster";
  std::string moved;
  for (const auto& [figure, words] : kMissFigures)
    if (const double delta = after.at(figure) - before.at(figure); std::abs(delta) >= kMissesMoved)
      moved += fmt::format("{}{} {:+.2f}/op", moved.empty() ? "" : ", ", words, delta);
  return moved.empty() ? text : text + " (" + moved + ")";
}

std::string reading_rule_text() {
  return fmt::format(
      "more work / less work: instructions per operation changed by more than {:g}% (or by more than "
      "the instrumented processes of either side lay apart, where that is more); same work, slower / "
      "same work, faster: the time was called slower or faster and the instructions did not move, with "
      "the simulated misses that moved by at least {:g} per operation; none (-): neither",
      kWorkThreshold * 100, kMissesMoved);
}

}  // namespace abench
