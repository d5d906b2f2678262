#include <map>

#include <fmt/format.h>

#include "src/results/count_text.h"
#include "src/results/results_writers.h"
#include "src/util/csv.h"

namespace abench {
namespace {

std::string number(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : ""; }
std::string ratio(const std::optional<double>& v) { return v ? fmt::format("{:.5f}", *v) : ""; }

// A per-buffer average, to three places where buffers differ.
std::string per_buffer(std::uint64_t total, std::uint64_t buffers) { return per_buffer_text(total, buffers, 3); }

std::vector<std::string> count_columns(const std::optional<CellCounts>& counts) {
  if (!counts) return std::vector<std::string>(15);
  const CellCounts& c = *counts;
  return {per_buffer(c.requests, c.operations),
          per_buffer(c.frees, c.operations),
          per_buffer(c.requested_bytes, c.operations),
          std::to_string(c.final_request_bytes_min),
          std::to_string(c.final_request_bytes_max),
          std::to_string(c.usable_bytes_min),
          std::to_string(c.usable_bytes_max),
          std::to_string(c.block_usable_bytes_min),
          std::to_string(c.block_usable_bytes_max),
          std::to_string(c.fragmentation_bytes_min),
          std::to_string(c.fragmentation_bytes_max),
          std::to_string(c.peak_live_bytes),
          std::to_string(c.peak_rss_bytes),
          std::to_string(c.minor_faults),
          c.allocator_resident_available ? std::to_string(c.allocator_resident_bytes) : ""};
}

// The header row: a cell's identity, its figures under the measure's names, its counts, its
// status, and with --context the fresh placement's columns.
std::string header_row(const MetricNames& names, bool context) {
  std::string out = csv_row({"side",
                             "variant",
                             "backend",
                             "policy",
                             "workload",
                             "size",
                             "requested_align",
                             "preferred_align",
                             "live",
                             names.per_op,
                             names.process_min,
                             names.process_max,
                             names.best,
                             "iterations",
                             "samples",
                             "processes",
                             "requests",
                             "frees",
                             "requested_bytes",
                             "final_request_bytes_min",
                             "final_request_bytes_max",
                             "usable_bytes_min",
                             "usable_bytes_max",
                             "block_usable_bytes_min",
                             "block_usable_bytes_max",
                             "fragmentation_bytes_min",
                             "fragmentation_bytes_max",
                             "peak_live_bytes",
                             "peak_rss_bytes",
                             "minor_faults",
                             "allocator_resident_bytes",
                             "count_check",
                             "status",
                             "unstable",
                             "elision_suspected",
                             "layout_range",
                             "layout_p",
                             "layout_sensitive",
                             "error"});
  if (context) {
    out.pop_back();  // the header's line end: the context columns follow
    if (out.back() == '\r') out.pop_back();
    out += "," +
           csv_row({std::string("fresh_") + names.per_op, "context_change", "context_low", "context_high", "context"});
  }
  return out;
}

}  // namespace

// One row a cell; a compare's run has both sides' cells, told apart by `side` and `variant`.
std::string results_to_csv(const RunResults& r, const std::vector<CellContext>* context) {
  const MetricNames& names = metric_names(r.protocol.measure);
  std::string out = header_row(names, context != nullptr);
  std::map<int, const CellContext*> context_of;
  if (context)
    for (const CellContext& c : *context) context_of[c.cell] = &c;
  for (const CellRecord& record : r.cells) {
    const CellSpec& c = record.cell.spec;
    const CellSummary& s = record.summary;
    const Variant& variant = r.plan.variants[record.cell.variant];
    std::vector<std::string> fields{side_of(r, record),
                                    variant.label(),
                                    variant.backend,
                                    std::string(name_of(c.policy)),
                                    std::string(name_of(c.workload)),
                                    std::to_string(c.size),
                                    std::to_string(c.alignment.requested),
                                    std::to_string(c.alignment.preferred),
                                    std::to_string(c.live),
                                    number(s.ns_per_op),
                                    number(s.process_min_ns),
                                    number(s.process_max_ns),
                                    number(s.best),
                                    std::to_string(s.iterations),
                                    std::to_string(s.samples),
                                    std::to_string(s.processes)};
    for (auto& count : count_columns(record.counts)) fields.push_back(std::move(count));
    // --layouts only: empty where every process ran at one layout, or at the kernel's.
    const auto& spread = s.layout;
    fields.insert(fields.end(),
                  {s.count_check, std::string(name_of(s.status)), s.unstable ? "true" : "false",
                   s.elision_suspected ? "true" : "false", spread ? ratio(spread->range) : "",
                   spread ? fmt::format("{:.4g}", spread->p_value) : "",
                   spread ? (spread->sensitive(layout_margin(r.protocol)) ? "true" : "false") : "", s.error});
    if (context) {
      const auto found = context_of.find(c.id);
      if (found == context_of.end()) {
        fields.insert(fields.end(), {"", "", "", "", "fresh"});
      } else {
        const CellContext& x = *found->second;
        fields.insert(fields.end(), {number(x.fresh), ratio(x.change), ratio(x.low), ratio(x.high), x.flag});
      }
    }
    out += csv_row(fields);
  }
  return out;
}

}  // namespace abench
