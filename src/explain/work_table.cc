#include "src/explain/work_table.h"

#include <fmt/format.h>

#include "src/explain/work_figures.h"
#include "src/util/csv.h"
#include "src/util/text.h"
#include "src/util/text_table.h"

namespace abench {
namespace {

struct CellWork {
  const CellRecord& timed;
  std::optional<WorkFigures> work;
  std::string unavailable;
};

std::vector<CellWork> cells_with_work(const RunResults& timed, const RunResults& instrumented) {
  std::vector<CellWork> out;
  for (const CellRecord& cell : timed.cells) {
    const auto at = static_cast<std::size_t>(cell.cell.spec.id);
    const CellRecord* counted = at < instrumented.cells.size() ? &instrumented.cells[at] : nullptr;
    CellWork w{cell, counted ? work_figures_of(*counted) : std::nullopt, ""};
    if (!w.work) w.unavailable = why_no_work_figures(counted);
    out.push_back(std::move(w));
  }
  return out;
}

std::string fixed(const std::optional<double>& v, int digits) {
  return v ? fmt::format("{:.{}f}", *v, digits) : std::string("-");
}

}  // namespace

std::string work_table(const RunResults& timed, const RunResults& instrumented) {
  std::vector<std::vector<std::string>> rows{{"backend", "policy", "workload", "size", "align R:P", "live", "ns/op",
                                              "instr/op", "branch misses/op", "memory accesses/op", "note"}};
  for (const CellWork& c : cells_with_work(timed, instrumented)) {
    const CellSpec& s = c.timed.cell.spec;
    const auto figure = [&](auto f) { return c.work ? std::optional<double>(f(*c.work)) : std::nullopt; };
    rows.push_back({timed.plan.variants[c.timed.cell.variant].label(), std::string(name_of(s.policy)),
                    std::string(name_of(s.workload)), std::to_string(s.size),
                    fmt::format("{}:{}", s.alignment.requested, s.alignment.preferred), std::to_string(s.live),
                    fixed(c.timed.summary.ns_per_op, 2),
                    fixed(figure([](const WorkFigures& w) { return w.at("instructions"); }), 1),
                    fixed(figure([](const WorkFigures& w) { return w.at("branch_misses"); }), 2),
                    fixed(figure([](const WorkFigures& w) { return w.at("data_reads") + w.at("data_writes"); }), 1),
                    printable(c.unavailable.substr(0, 100))});
  }
  return aligned_columns(rows, {false, false, false, true, false, true, true, true, true, true, false});
}

std::string work_csv(const RunResults& timed, const RunResults& instrumented) {
  std::vector<std::string> header{"variant",         "backend", "policy",
                                  "workload",        "size",    "requested_align",
                                  "preferred_align", "live",    metric_names(timed.protocol.measure).per_op};
  for (std::string_view figure : kWorkFigureNames) header.emplace_back(figure);
  header.insert(header.end(), {"memory_accesses", "work_repeatability", "work_unavailable"});
  std::string out = csv_row(header);
  for (const CellWork& c : cells_with_work(timed, instrumented)) {
    const CellSpec& s = c.timed.cell.spec;
    const Variant& variant = timed.plan.variants[c.timed.cell.variant];
    std::vector<std::string> fields{variant.label(),
                                    variant.backend,
                                    std::string(name_of(s.policy)),
                                    std::string(name_of(s.workload)),
                                    std::to_string(s.size),
                                    std::to_string(s.alignment.requested),
                                    std::to_string(s.alignment.preferred),
                                    std::to_string(s.live),
                                    c.timed.summary.ns_per_op ? fmt::format("{:.3f}", *c.timed.summary.ns_per_op) : ""};
    for (std::string_view figure : kWorkFigureNames)
      fields.push_back(c.work ? fmt::format("{:.3f}", c.work->at(figure)) : "");
    fields.push_back(c.work ? fmt::format("{:.3f}", c.work->at("data_reads") + c.work->at("data_writes")) : "");
    fields.push_back(c.work ? fmt::format("{:.5f}", c.work->repeatability) : "");
    fields.push_back(c.unavailable);
    out += csv_row(fields);
  }
  return out;
}

}  // namespace abench
