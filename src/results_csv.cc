#include <fmt/format.h>

#include "src/results_writers.h"

namespace abench {
namespace {

std::string number(const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : ""; }

// RFC 4180: quote a field holding a comma, quote or line break; double the quotes.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string results_to_csv(const RunResults& r) {
  std::string out =
      "backend,policy,workload,size,requested_align,preferred_align,live,ns_per_op,"
      "process_min_ns,process_max_ns,iterations,samples,processes,status,unstable,error\n";
  for (const CellRecord& record : r.cells) {
    const CellSpec& c = record.cell.spec;
    const CellSummary s = summarize(record, r.protocol.processes);
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       r.plan.variants[record.cell.variant].backend, name_of(c.policy),
                       name_of(c.workload), c.size, c.alignment.requested, c.alignment.preferred,
                       c.live, number(s.ns_per_op), number(s.process_min_ns),
                       number(s.process_max_ns), s.iterations, s.samples, s.processes,
                       name_of(s.status), s.unstable ? "true" : "false", csv_field(s.error));
  }
  return out;
}

}  // namespace abench
