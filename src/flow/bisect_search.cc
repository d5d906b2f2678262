#include "src/flow/bisect_search.h"

#include <cstdlib>
#include <optional>

namespace abench {
namespace {

// The untested commit strictly inside (low, high) nearest its middle; the lower one on a tie.
std::optional<std::size_t> next_to_test(const std::vector<CommitState>& states, std::size_t low, std::size_t high) {
  std::optional<std::size_t> best;
  const long middle2 = static_cast<long>(low + high);  // twice the middle, to stay whole
  for (std::size_t i = low + 1; i < high; ++i) {
    if (states[i] != CommitState::untested) continue;
    if (!best || std::labs(2 * static_cast<long>(i) - middle2) < std::labs(2 * static_cast<long>(*best) - middle2))
      best = i;
  }
  return best;
}

}  // namespace

std::size_t default_max_tests(std::size_t count) {
  std::size_t clean = 0;
  while ((std::size_t{1} << clean) < count) ++clean;
  return 2 * clean + 2;
}

BisectRange bisect_commits(std::size_t count, const std::function<CommitState(std::size_t)>& test,
                           std::vector<CommitState>& states, std::size_t max_tests) {
  states.assign(count, CommitState::untested);
  states.front() = CommitState::good;
  states.back() = CommitState::bad;
  BisectRange range{0, count - 1};
  for (std::size_t tests = 0; !range.found() && tests < max_tests; ++tests) {
    const auto next = next_to_test(states, range.last_good, range.first_bad);
    if (!next) break;  // every commit between was skipped or unknown: the range is the answer
    states[*next] = test(*next);
    if (states[*next] == CommitState::good) range.last_good = *next;
    if (states[*next] == CommitState::bad) range.first_bad = *next;
  }
  return range;
}

}  // namespace abench
