#include "src/results/timed_loops.h"

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {

TimedLoops timed_loops_of(const RunResults& results) {
  TimedLoops loops;
  for (std::size_t v = 0; v < results.plan.variants.size(); ++v)
    if (const WorkerHello* hello = hello_of_variant(results, v))
      loops.emplace(results.plan.variants[v].backend, hello->timed_loop);
  return loops;
}

TimedLoops timed_loops_of(const std::vector<Variant>& variants, const std::vector<std::string>& loops) {
  TimedLoops by_backend;
  for (std::size_t v = 0; v < variants.size() && v < loops.size(); ++v)
    by_backend.emplace(variants[v].backend, loops[v]);
  return by_backend;
}

void refuse_other_timed_loops(const LoopSide& a, const LoopSide& b, const std::string& command,
                              const std::string& remedy) {
  for (const auto& [backend, loop] : a.loops) {
    const auto other = b.loops.find(backend);
    if (other == b.loops.end() || other->second == loop) continue;
    throw UsageError(fmt::format(
        "{}: backend '{}' of {} was measured with {}, and of {} with {}: abench's loop changed between them (its "
        "harness/cell_runner.cc compiled otherwise), so a difference would be abench's as much as the "
        "allocator's; {}",
        command, printable(backend), a.what, timed_loop_phrase(printable(loop)), b.what,
        timed_loop_phrase(printable(other->second)), remedy));
  }
}

}  // namespace abench
