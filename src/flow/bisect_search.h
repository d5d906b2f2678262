// Where between a good and a bad commit a change came in, from tests that may not answer
// (src/flow/bisect_flow.h): a commit that does not build is skipped, one whose compare stays
// unclear is unknown, and neither is ever guessed good or bad. The answer is the first bad
// commit when the last good one is its parent, else the smallest range the evidence allows.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

namespace abench {

enum class CommitState { untested, good, bad, unknown, skipped };

struct BisectRange {
  std::size_t last_good = 0, first_bad = 0;  // indices into the commits; first_bad = last_good + 1: found
  bool found() const { return first_bad == last_good + 1; }
};

// commits[0] is good and commits.back() bad (both tested already); `test` says what commit i
// is. Tests the commit nearest the middle of the range left (of those not yet tested), until
// the range is one step, every commit in it has been tested, or `max_tests` were: where
// commits keep coming out unknown, a walk over all of them would take hours and end in a
// range too. `states` holds each commit's.
BisectRange bisect_commits(std::size_t count, const std::function<CommitState(std::size_t)>& test,
                           std::vector<CommitState>& states, std::size_t max_tests);

// The default cap on tests: twice the tests a clean search needs, and two more.
std::size_t default_max_tests(std::size_t count);

}  // namespace abench
