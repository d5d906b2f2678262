#include "src/plan/cost.h"

namespace abench {
namespace {

// Fitted on this project's 2-core VM (docs/decisions.md, "The cost model"): what starting a
// worker, a counting run, the warm-up and a timed batch take.
constexpr double kWorkerStartS = 0.010;
constexpr double kCountingRunS = 0.010;
constexpr double kCountingSPerLiveByte = 3e-9;
constexpr double kWarmupBatches = 0.3;
constexpr double kBatchLength = 1.07;
constexpr double kCallgrindStartS = 1.0;

}  // namespace

double expected_timed_seconds(const CellSpec& cell, const RunProtocol& p) {
  (void)cell;  // every cell's batches last min_batch_ms: the protocol, not the cell, sets the time
  if (row_of(p.measure).callgrind) return kCallgrindStartS;
  const double timed = (p.samples + kWarmupBatches) * kBatchLength * p.min_batch_ms / 1000;
  return timed + (p.fresh_process_per_cell ? kWorkerStartS : 0);
}

double expected_counting_seconds(const CellSpec& cell, const RunProtocol& p) {
  return p.counts ? kCountingRunS + kCountingSPerLiveByte * static_cast<double>(cell_footprint_bytes(cell)) : 0;
}

double expected_cell_seconds(const CellSpec& cell, const RunProtocol& p) {
  return p.processes * expected_timed_seconds(cell, p) + expected_counting_seconds(cell, p);
}

std::vector<double> cumulative_expected_seconds(const Plan& plan, const std::vector<Job>& jobs,
                                                const RunProtocol& protocol) {
  std::vector<double> sums{0};
  for (const Job& job : jobs)
    for (int id : job.cell_ids) {
      const CellSpec& cell = plan.cells[static_cast<std::size_t>(id)].spec;
      sums.push_back(sums.back() + (job.mode == WorkerMode::count ? expected_counting_seconds(cell, protocol)
                                                                  : expected_timed_seconds(cell, protocol)));
    }
  return sums;
}

}  // namespace abench
