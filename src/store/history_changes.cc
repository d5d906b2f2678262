#include "src/store/history_changes.h"

#include <algorithm>
#include <cmath>

#include "src/stats/statistics.h"

namespace abench {
namespace {

double mean_figure(const Series& s, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) sum += s.points[i].figure;
  return sum / static_cast<double>(to - from);
}

SeriesChange change_at(const Series& s, std::size_t from, std::size_t at, std::size_t to) {
  SeriesChange c;
  c.series = &s;
  c.index = at;
  c.commit = s.points[at].commit;
  c.previous_commit = s.points[at - 1].commit;
  c.before = mean_figure(s, from, at);
  c.after = mean_figure(s, at, to);
  c.change = c.after / c.before - 1;
  c.points_before = at - from;
  c.points_after = to - at;
  return c;
}

// The library's changes within [from, to), a stretch measured by one abench.
void changes_within(const Series& s, std::size_t from, std::size_t to, const ChangePointRule& rule,
                    std::vector<SeriesChange>& out) {
  std::vector<double> figures;
  for (std::size_t i = from; i < to; ++i) figures.push_back(s.points[i].figure);
  const std::vector<ChangePoint> found = change_points(figures, rule);
  for (std::size_t k = 0; k < found.size(); ++k) {
    const std::size_t left = k == 0 ? from : from + found[k - 1].index;
    const std::size_t right = k + 1 == found.size() ? to : from + found[k + 1].index;
    SeriesChange c = change_at(s, left, from + found[k].index, right);
    c.p_value = found[k].p_value;
    c.detectable = rule.min_step;
    out.push_back(std::move(c));
  }
}

}  // namespace

double detectable_change(const Series& series, double floor) {
  std::vector<double> ranges;
  for (const SeriesPoint& p : series.points)
    if (p.figure > 0) ranges.push_back((p.process_high - p.process_low) / p.figure);
  return ranges.empty() ? floor : std::max(floor, median(ranges));
}

std::vector<SeriesChange> find_changes(const std::vector<Series>& all, const ChangePointRule& rule) {
  std::vector<SeriesChange> changes;
  for (const Series& s : all) {
    ChangePointRule own = rule;
    own.min_step = detectable_change(s, rule.min_step);
    std::size_t from = 0;
    for (std::size_t i = 1; i <= s.points.size(); ++i) {
      if (i < s.points.size() && same_measurer(s.points[i], s.points[from])) continue;
      changes_within(s, from, i, own, changes);
      // Another abench measured from i on: a boundary of its own, judged by no test.
      if (i < s.points.size()) {
        std::size_t next = i;
        while (next < s.points.size() && same_measurer(s.points[next], s.points[i])) ++next;
        SeriesChange boundary = change_at(s, from, i, next);
        boundary.by_abench = true;
        boundary.loop_before = s.points[i - 1].timed_loop;
        boundary.loop_after = s.points[i].timed_loop;
        boundary.detectable = own.min_step;
        changes.push_back(std::move(boundary));
      }
      from = i;
    }
  }
  std::stable_sort(changes.begin(), changes.end(), [](const SeriesChange& a, const SeriesChange& b) {
    if (a.by_abench != b.by_abench) return !a.by_abench;
    if ((a.change > 0) != (b.change > 0)) return a.change > 0;
    return std::fabs(a.change) > std::fabs(b.change);
  });
  return changes;
}

}  // namespace abench
