// action-benchmark.json: github-action-benchmark's customSmallerIsBetter input, a JSON array
// of {name, unit, value, range, extra}; the action pairs runs by name and alerts on value.
// One entry per measured cell (the median of its process medians); the action has no place
// for an error, so a cell without a figure has no entry and `extra` says what was measured.
#include <fmt/format.h>

#include "src/exports/export_names.h"
#include "src/exports/format_registry.h"

namespace abench {

std::string action_benchmark_json(const RunResults& r) {
  const std::vector<std::string> variants = variant_name_parts(r);
  const std::string unit = unit_per_op(r.protocol.measure);
  nlohmann::json out = nlohmann::json::array();
  for (const CellRecord& record : r.cells) {
    const CellSummary& s = record.summary;
    if (!s.ns_per_op) continue;
    const Variant& variant = r.plan.variants[record.cell.variant];
    std::string extra = fmt::format("median of {} process medians (range {:.4g} to {:.4g}); variant {}", s.processes,
                                    *s.process_min_ns, *s.process_max_ns, variant.label());
    if (const std::string side = side_of(r, record); !side.empty()) extra += " (" + side + ")";
    if (const WorkerHello* hello = hello_of_variant(r, record.cell.variant))
      extra += fmt::format("; {} entry points", hello->entry_set);
    extra += fmt::format("; measure {}; touch {}", name_of(r.protocol.measure), r.protocol.touch);
    out.push_back({{"name", arg_value_name(identity_of(r, record, variants))},
                   {"unit", unit},
                   {"value", *s.ns_per_op},
                   {"range", fmt::format("± {:.4g}", (*s.process_max_ns - *s.process_min_ns) / 2)},
                   {"extra", extra}});
  }
  return out.dump(2) + "\n";
}

}  // namespace abench
