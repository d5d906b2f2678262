// A run's figure judged against a segment of its cell's history (gate --history,
// docs/history.md): the segment's points are runs like this one (the same build path, the
// same measuring abench, the same machine), so their spread is the noise a run's figure has
// from run to run, which one stored baseline cannot show. On the logs the change is the run's
// distance from the segment's mean, and its interval the prediction interval of a new run
// (Student's t with n - 1 degrees of freedom, sqrt(1 + 1/n) for the mean's own error):
// were nothing changed, the run falls outside it with the chance 1 - confidence. The call is
// the one rule's (call_of, src/verdict/change_rule.h).
#pragma once

#include <cstddef>
#include <vector>

#include "src/verdict/change_rule.h"

namespace abench {

// The fewest points a segment needs to judge by (ChangePointRule::min_segment: a change point
// is found only with as many on its far side).
inline constexpr std::size_t kMinSegmentPoints = 5;

// `segment`: the figures of the runs since the cell's last change point; `runs` the figures of
// the runs judged (one, or a run and its confirmation: their geometric mean, its interval
// sqrt(1/k + 1/n) wide). `bar` and `margin` as judge_change takes them. Undecided, with its
// reason, below kMinSegmentPoints points or for a figure that is not positive.
Judgement judge_against_segment(const std::vector<double>& segment, const std::vector<double>& runs, double confidence,
                                double bar, double margin);

}  // namespace abench
