#include "src/run/added_rounds.h"

#include <fmt/format.h>

#include "src/plan/cost.h"
#include "src/run/adaptive_rounds.h"
#include "src/util/interrupt.h"
#include "src/util/text.h"

namespace abench {

void run_added_rounds(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks,
                      ProgressLine& progress, std::chrono::steady_clock::time_point started) {
  const RunProtocol& p = results.protocol;
  const IntervalTarget target{p.until_interval, p.max_rounds, p.interval_confidence, p.budget_s};
  const std::size_t judged = results.plan.partner.empty() ? results.cells.size() : results.cells.size() / 2;
  std::size_t last_unresolved = judged + 1;
  int added = 0;
  run_adaptive_rounds(results, target, launcher, hooks, started, [&](const RoundAnnouncement& round) {
    ++added;
    if (round.seconds_left < 0) {
      progress.finish();
      fmt::print(stderr, "round {}: {} cell{} still wider than {:g}%\n", round.jobs.front().round + 1, round.cells,
                 round.cells == 1 ? "" : "s", p.until_interval * 100);
    } else {
      // Cells stand at different rounds under a budget: the rounds added are counted instead.
      // A budget's rounds can be many: a line when the count of wide cells changes, the
      // progress line in between.
      const std::string status =
          fmt::format("{} of {} cells still wider than {:g}%, {} of the budget left", round.unresolved, judged,
                      p.until_interval * 100, format_duration(round.seconds_left));
      if (round.unresolved != last_unresolved) {
        progress.finish();
        fmt::print(stderr, "added round {}: {} (this round: {} cell{})\n", added, status, round.cells,
                   round.cells == 1 ? "" : "s");
        last_unresolved = round.unresolved;
      }
      progress.note(fmt::format("added round {}: {}", added, status));
    }
    progress.expect(cumulative_expected_seconds(results.plan, round.jobs, results.protocol));
  });
  if (p.budget_s > 0 && interrupt_signal() == 0) {
    progress.finish();
    const std::size_t wide = cells_left_wide(results, target);
    fmt::print(stderr, "--budget {}: measured in {}; {} cell{} still wider than {:g}%{}\n", format_duration(p.budget_s),
               format_duration(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()), wide,
               wide == 1 ? "" : "s", p.until_interval * 100,
               wide ? " (not expected to narrow in the time left, or at --max-rounds)" : "");
  }
}

}  // namespace abench
