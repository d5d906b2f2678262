#include "src/results.h"

#include <algorithm>

#include "src/statistics.h"

namespace abench {

std::string_view name_of(CellStatus status) {
  switch (status) {
    case CellStatus::pending: return "pending";
    case CellStatus::ok: return "ok";
    case CellStatus::failed: return "failed";
  }
  return "?";
}

CellSummary summarize(const CellRecord& record, int expected_processes) {
  CellSummary s;
  s.processes = static_cast<int>(record.processes.size());
  if (!record.failures.empty()) {
    s.status = CellStatus::failed;
    s.error = record.failures.front();
  } else if (s.processes >= expected_processes) {
    s.status = CellStatus::ok;
  }
  if (record.processes.empty()) return s;

  std::vector<double> medians;
  std::vector<double> iterations;
  for (const auto& p : record.processes) {
    medians.push_back(p.median_ns_per_op);
    iterations.push_back(static_cast<double>(p.iterations));
  }
  s.ns_per_op = median(medians);
  s.process_min_ns = minimum(medians);
  s.process_max_ns = maximum(medians);
  s.iterations = static_cast<std::uint64_t>(median(iterations));
  s.samples = static_cast<int>(record.processes.front().sample_ns_per_op.size());
  s.unstable = medians.size() > 1 && *s.process_max_ns > kUnstableSpread * *s.process_min_ns;
  return s;
}

const WorkerHello* hello_of_variant(const RunResults& results, std::size_t variant) {
  for (const auto& w : results.workers)
    if (w.job.variant == variant && w.hello) return &*w.hello;
  return nullptr;
}

}  // namespace abench
