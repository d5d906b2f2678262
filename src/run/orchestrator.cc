#include "src/run/orchestrator.h"

#include "src/run/job_queue.h"

namespace abench {

void lay_out_cells(RunResults& results) {
  results.cells.clear();
  for (const auto& cell : results.plan.cells) {
    CellRecord record;
    record.cell = cell;
    results.cells.push_back(std::move(record));
  }
  results.workers.clear();
}

void run_plan(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks) {
  lay_out_cells(results);
  run_jobs(results, results.plan.jobs, launcher, hooks);
}

std::size_t run_jobs(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher,
                     const OrchestratorHooks& hooks) {
  return JobQueue(results, jobs, launcher, hooks).run();
}

}  // namespace abench
