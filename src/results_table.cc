#include <fmt/format.h>

#include "src/results_writers.h"

namespace abench {

std::string results_to_table(const RunResults& r) {
  struct Row {
    std::string cols[9];
  };
  std::vector<Row> rows{{{"backend", "policy", "workload", "size", "align R:P", "live", "ns/op",
                          "process range", "note"}}};
  for (const CellRecord& record : r.cells) {
    const CellSpec& c = record.cell.spec;
    const CellSummary s = summarize(record, r.protocol.processes);
    std::string note;
    if (s.status == CellStatus::failed) note = "FAILED: " + s.error.substr(0, 100);
    else if (s.status == CellStatus::pending) note = "not measured";
    if (s.unstable) note = "UNSTABLE (>" + fmt::format("{}", kUnstableSpread) + "x) " + note;
    rows.push_back({{r.plan.variants[record.cell.variant].backend, std::string(name_of(c.policy)),
                     std::string(name_of(c.workload)), std::to_string(c.size),
                     fmt::format("{}:{}", c.alignment.requested, c.alignment.preferred),
                     std::to_string(c.live),
                     s.ns_per_op ? fmt::format("{:.2f}", *s.ns_per_op) : "-",
                     s.ns_per_op ? fmt::format("{:.2f}-{:.2f}", *s.process_min_ns, *s.process_max_ns) : "-",
                     note}});
  }
  std::size_t width[9] = {};
  for (const Row& row : rows)
    for (int i = 0; i < 9; ++i) width[i] = std::max(width[i], row.cols[i].size());
  std::string out;
  for (const Row& row : rows) {
    std::string line;
    for (int i = 0; i < 9; ++i) {
      const bool numeric = i == 3 || i == 5 || i == 6 || i == 7;
      line += numeric ? fmt::format("{:>{}}  ", row.cols[i], width[i])
                      : fmt::format("{:<{}}  ", row.cols[i], width[i]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace abench
