#include <fmt/format.h>

#include "src/results_writers.h"

namespace abench {
namespace {

std::string number(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : ""; }

// A per-buffer average: an integer when every buffer made the same requests.
std::string per_buffer(std::uint64_t total, std::uint64_t buffers) {
  if (buffers == 0) return "0";
  if (total % buffers == 0) return std::to_string(total / buffers);
  return fmt::format("{:.3f}", static_cast<double>(total) / static_cast<double>(buffers));
}

std::string count_columns(const std::optional<CellCounts>& counts) {
  if (!counts) return std::string(15, ',');
  const CellCounts& c = *counts;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},", per_buffer(c.requests, c.operations),
                     per_buffer(c.frees, c.operations), per_buffer(c.requested_bytes, c.operations),
                     c.final_request_bytes_min, c.final_request_bytes_max, c.usable_bytes_min,
                     c.usable_bytes_max, c.block_usable_bytes_min, c.block_usable_bytes_max,
                     c.fragmentation_bytes_min, c.fragmentation_bytes_max, c.peak_live_bytes,
                     c.peak_rss_bytes, c.minor_faults,
                     c.allocator_resident_available ? std::to_string(c.allocator_resident_bytes) : "");
}

// RFC 4180: quote a field holding a comma, quote or line break; double the quotes.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string results_to_csv(const RunResults& r) {
  const MetricNames& names = metric_names(r.protocol.measure);
  std::string out =
      fmt::format("backend,policy,workload,size,requested_align,preferred_align,live,{},{},{},{},", names.per_op,
                  names.process_min, names.process_max, names.best) +
      "iterations,samples,processes,"
      "requests,frees,requested_bytes,final_request_bytes_min,final_request_bytes_max,"
      "usable_bytes_min,usable_bytes_max,block_usable_bytes_min,block_usable_bytes_max,"
      "fragmentation_bytes_min,fragmentation_bytes_max,peak_live_bytes,peak_rss_bytes,"
      "minor_faults,allocator_resident_bytes,count_check,status,unstable,elision_suspected,error\n";
  for (const CellRecord& record : r.cells) {
    const CellSpec& c = record.cell.spec;
    const CellSummary s = summarize(record, r.protocol.processes, r.protocol.measure);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}{},{},{},{},{}\n",
                       r.plan.variants[record.cell.variant].backend, name_of(c.policy),
                       name_of(c.workload), c.size, c.alignment.requested, c.alignment.preferred,
                       c.live, number(s.ns_per_op), number(s.process_min_ns),
                       number(s.process_max_ns), number(s.best), s.iterations, s.samples, s.processes,
                       count_columns(record.counts), csv_field(s.count_check), name_of(s.status),
                       s.unstable ? "true" : "false", s.elision_suspected ? "true" : "false",
                       csv_field(s.error));
  }
  return out;
}

}  // namespace abench
