// bencher.json in the Bencher Metric Format: per cell (named as benchmark.json names it, the
// variant included), the measure's median of process medians with the range of the process
// medians as lower and upper values, and the counts. A cell without a figure (failed,
// refused) has no entry: the format has no place for an error.
#include <fmt/format.h>

#include "harness/perf_counters.h"
#include "src/exports/export_names.h"
#include "src/exports/format_registry.h"

namespace abench {

std::string bencher_json(const RunResults& r) {
  const std::string_view metric = row_of(r.protocol.measure).metric;
  const std::string measure = metric.empty() ? perf_events_of(r.protocol.measure).front().name : std::string(metric);
  const std::vector<std::string> variants = variant_name_parts(r);
  nlohmann::json out = nlohmann::json::object();
  for (const CellRecord& record : r.cells) {
    const CellSummary& s = record.summary;
    if (!s.ns_per_op) continue;
    nlohmann::json metrics{
        {measure, {{"value", *s.ns_per_op}, {"lower_value", *s.process_min_ns}, {"upper_value", *s.process_max_ns}}}};
    for (const auto& [event, value] : s.counters_per_op)
      metrics[event == "ns" ? "latency" : event] = {{"value", value}};
    if (record.counts) {
      metrics["requests"] = {{"value", per_op(record.counts->requests, record.counts->operations)}};
      metrics["requested-bytes"] = {{"value", per_op(record.counts->requested_bytes, record.counts->operations)}};
      metrics["usable-bytes"] = {{"value", record.counts->usable_bytes_min},
                                 {"lower_value", record.counts->usable_bytes_min},
                                 {"upper_value", record.counts->usable_bytes_max}};
    }
    out[arg_value_name(identity_of(r, record, variants))] = std::move(metrics);
  }
  return out.dump(2) + "\n";
}

}  // namespace abench
