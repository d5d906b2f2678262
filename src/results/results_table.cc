
#include <fmt/format.h>

#include "src/results/count_text.h"
#include "src/results/results_writers.h"
#include "src/util/text_table.h"

namespace abench {
namespace {

// Right-aligned (numeric) columns; the last, the note, is not.
const std::vector<bool> kNumeric = {false, false, false, true, false, true, true, true, true, true, true, true, false};

// A variant that is more than a backend and a policy (run --variant preload=..., exe=,
// plugin=, env=, label=) is named in a first column, or two such rows would read alike.
bool names_variants(const RunResults& r) {
  for (const Variant& v : r.plan.variants)
    if (v.label() != v.backend + "/" + std::string(name_of(v.policy))) return true;
  return false;
}

}  // namespace

std::string results_to_table(const RunResults& r) {
  std::vector<std::vector<std::string>> rows{{"backend", "policy", "workload", "size", "align R:P", "live",
                                              metric_names(r.protocol.measure).column, "process range", "best",
                                              "req/buf", "bytes/buf", "usable", "note"}};
  for (const CellRecord& record : r.cells) {
    const CellSpec& c = record.cell.spec;
    const CellSummary& s = record.summary;
    std::string note;
    if (s.status == CellStatus::failed)
      note = "FAILED: " + s.error.substr(0, 100);
    else if (s.status == CellStatus::pending)
      note = "not measured";
    else if (s.status == CellStatus::partial)
      note = s.error;
    else if (s.status == CellStatus::refused)
      note = "REFUSED: " + s.error.substr(kRefusedPrefix.size(), 110);
    if (s.unstable) note = fmt::format("UNSTABLE (>{}x) {}", kUnstableSpread, note);
    if (s.elision_suspected) note = "ELIDED? (<1 ns) " + note;
    if (s.layout && s.layout->sensitive(layout_margin(r.protocol)))
      note = fmt::format("LAYOUT-SENSITIVE ({:.1f}% apart) {}", 100 * s.layout->range, note);
    if (!s.count_check.empty() && s.count_check != "ok") note = "COUNTS " + s.count_check + " " + note;
    const auto& k = record.counts;
    rows.push_back(
        {r.plan.variants[record.cell.variant].backend, std::string(name_of(c.policy)), std::string(name_of(c.workload)),
         std::to_string(c.size), fmt::format("{}:{}", c.alignment.requested, c.alignment.preferred),
         std::to_string(c.live), s.ns_per_op ? fmt::format("{:.2f}", *s.ns_per_op) : "-",
         s.ns_per_op ? fmt::format("{:.2f}-{:.2f}", *s.process_min_ns, *s.process_max_ns) : "-",
         s.best ? fmt::format("{:.2f}", *s.best) : "-", k ? per_buffer_text(k->requests, k->operations) : "-",
         k ? per_buffer_text(k->requested_bytes, k->operations) : "-",
         k ? range_text(k->usable_bytes_min, k->usable_bytes_max) : "-", note});
  }
  if (!names_variants(r)) return aligned_columns(rows, kNumeric);
  rows[0].insert(rows[0].begin(), "variant");
  for (std::size_t i = 1; i < rows.size(); ++i)
    rows[i].insert(rows[i].begin(), r.plan.variants[r.cells[i - 1].cell.variant].label());
  std::vector<bool> numeric = kNumeric;
  numeric.insert(numeric.begin(), false);
  return aligned_columns(rows, numeric);
}

}  // namespace abench
