// Runs a plan: launches each job's worker, feeds its answers into RunResults as they
// arrive. A worker that crashes, hangs or breaks the protocol fails the cell it was
// running; a fresh worker runs the cells it had not reached, so the rest of the run goes on.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/run/launcher.h"
#include "src/plan/protocol_rules.h"
#include "src/results/results.h"

namespace abench {

struct OrchestratorHooks {
  // Path of the worker executable for a backend.
  std::function<std::string(const Variant& variant, WorkerMode mode)> worker_path;
  // Instructions mode: valgrind's path, and where callgrind writes its dumps.
  std::string valgrind = "/usr/bin/valgrind";
  std::string callgrind_dir = "/tmp";
  // The frame every worker starts in (src/run/launch_frame.h); 0: as abench's own. Where the
  // timed workers' fresh copies are made ("": none).
  FrameSize frame = {};
  std::string fresh_copy_dir;
  // Per variant of the plan: the shared object its timed workers' fresh copies include ("" or
  // missing: the executable alone; src/run/preflight.h, allocator_libraries).
  std::vector<std::string> fresh_copy_libraries;
  // >= 0: counting runs go beside the timed ones, one at a time on this CPU (never the
  // measured one) at the idle scheduling class, instead of first (src/run/beside_cpus.h).
  int counting_cpu = -1;
  // Where counting runs go first (counting_cpu < 0): the CPUs they run on side by side, one
  // run a CPU at a time (nothing is timed while they run); empty or one: one at a time, as
  // the timed workers are placed.
  std::vector<int> counting_first_cpus;
  // The CPU timed workers pin to (-1: not pinned) and, when not empty, the CPUs beside it
  // (src/run/beside_cpus.h) on which each paced pair's workers start up while the pair
  // before them is measured, to move to measured_cpu at their first word (docs/protocol.md,
  // "Started ahead"). Set only where that applies (workers pinned, timed by the clock).
  int measured_cpu = -1;
  std::vector<int> start_ahead_cpus;
  // Called after every change to the results (a cell reported, a worker ended), so the
  // caller can put them on disk before the next cell starts.
  std::function<void(const RunResults&)> on_update = [](const RunResults&) {};
  // Called when no timed worker runs (before each launch, and when the jobs are done): the
  // moment to write files without disturbing a timed batch.
  std::function<void(const RunResults&)> between_workers = [](const RunResults&) {};
  // Measurements done (cell x process) of total, and what runs now.
  std::function<void(std::size_t done, std::size_t total, const std::string& current)> on_progress =
      [](std::size_t, std::size_t, const std::string&) {};
};

// Empty records for every cell of the plan.
void lay_out_cells(RunResults& results);

// Runs every job of the plan from empty results.
void run_plan(RunResults& results, WorkerLauncher& launcher, const OrchestratorHooks& hooks);

// Runs these jobs into results whose cells exist (a plan's, or a resumed run's), a fresh
// worker taking over the cells a failed one had not reached. Stops launching when abench
// is interrupted (src/util/interrupt.h). Returns the cells reported or failed.
std::size_t run_jobs(RunResults& results, const std::vector<Job>& jobs, WorkerLauncher& launcher,
                     const OrchestratorHooks& hooks);

}  // namespace abench
