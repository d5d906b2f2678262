// Rounds added to the cells whose interval is still wider than --until-interval's (within
// --budget's time), run with what the user sees of them: a line when the count of wide
// cells changes, the progress line in between.
#pragma once

#include <chrono>

#include "src/results/results.h"
#include "src/run/launcher.h"
#include "src/run/orchestrator.h"
#include "src/run/progress.h"

namespace abench {

void run_added_rounds(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks,
                      ProgressLine& progress, std::chrono::steady_clock::time_point started);

}  // namespace abench
