#include "src/exports/export_names.h"

#include <set>

#include <fmt/format.h>

#include "harness/perf_counters.h"
#include "src/plan/protocol_fields.h"

namespace abench {
namespace {

std::string name_part(std::string_view text) {
  std::string part;
  for (char c : text) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '_' || c == '+' || c == '-';
    part += kept ? c : '-';
  }
  return part.empty() ? "-" : part;
}

}  // namespace

std::vector<std::string> variant_name_parts(const RunResults& results) {
  std::vector<std::string> parts;
  std::set<std::string> taken;
  for (const Variant& v : results.plan.variants) {
    std::string part = name_part(v.label());
    for (int n = 2; taken.contains(part); ++n) part = name_part(v.label()) + "~" + std::to_string(n);
    taken.insert(part);
    parts.push_back(part);
  }
  return parts;
}

CellIdentity identity_of(const RunResults& results, const CellRecord& cell, const std::vector<std::string>& variants) {
  const CellSpec& spec = cell.cell.spec;
  CellIdentity id;
  id.variant = variants.at(cell.cell.variant);
  id.side = side_of(results, cell);
  id.backend = name_part(results.plan.variants[cell.cell.variant].backend);
  id.policy = name_of(spec.policy);
  id.workload = name_of(spec.workload);
  id.size = spec.size;
  id.align_requested = spec.alignment.requested;
  id.align_preferred = spec.alignment.preferred;
  id.live = spec.live;
  return id;
}

std::string arg_value_name(const CellIdentity& c) {
  return fmt::format("abench/variant:{}/backend:{}/policy:{}/workload:{}/size:{}/align:{}-{}/live:{}", c.variant,
                     c.backend, c.policy, c.workload, c.size, c.align_requested, c.align_preferred, c.live);
}

std::string key_value_name(const CellIdentity& c) {
  return fmt::format("BenchmarkAbench/variant={}/backend={}/policy={}/workload={}/size={}/align={}-{}/live={}",
                     c.variant, c.backend, c.policy, c.workload, c.size, c.align_requested, c.align_preferred, c.live);
}

std::string unit_per_op(Measure measure) {
  if (!row_of(measure).unit.empty()) return std::string(row_of(measure).unit);
  const std::string leader = perf_events_of(measure).front().name;
  return leader == "task-clock" ? "task-clock-ns/op" : leader + "/op";  // task-clock counts ns
}

std::string go_arch(std::string_view machine) {
  static const std::pair<std::string_view, std::string_view> kNames[] = {
      {"x86_64", "amd64"}, {"aarch64", "arm64"}, {"arm64", "arm64"},     {"i386", "386"},        {"i686", "386"},
      {"armv7l", "arm"},   {"armv6l", "arm"},    {"riscv64", "riscv64"}, {"ppc64le", "ppc64le"}, {"s390x", "s390x"}};
  for (const auto& [uname, go] : kNames)
    if (machine == uname) return std::string(go);
  return machine.empty() ? "unknown" : std::string(machine);
}

nlohmann::json export_context(const RunResults& r) {
  const RunProtocol& p = r.protocol;
  nlohmann::json variants = nlohmann::json::array();
  const std::vector<std::string> parts = variant_name_parts(r);
  for (std::size_t v = 0; v < r.plan.variants.size(); ++v) {
    const Variant& variant = r.plan.variants[v];
    nlohmann::json entry{{"name_part", parts[v]},
                         {"label", variant.label()},
                         {"backend", variant.backend},
                         {"policy", name_of(variant.policy)}};
    if (!r.plan.partner.empty()) entry["side"] = v % 2 == 0 ? "baseline" : "candidate";
    if (const WorkerHello* hello = hello_of_variant(r, v)) {
      entry["allocator_version"] = hello->allocator_version;
      entry["malloc_object"] = hello->malloc_object;
      entry["entry_set"] = hello->entry_set;
      entry["entry_calls"] = hello->entry_calls;
    }
    variants.push_back(std::move(entry));
  }
  return {{"measure", name_of(p.measure)},
          {"unit", unit_per_op(p.measure)},
          {"samples_per_process", p.samples},
          {"processes", p.processes},
          {"min_batch_ms", p.min_batch_ms},
          {"process_mode", process_mode_name(p)},
          {"interleave_batches", p.interleave_batches},
          {"touch", p.touch},
          {"pin", p.pin},
          {"seed", p.seed},
          {"variants", variants}};
}

std::string cell_problem(const CellSummary& s) {
  if (s.status == CellStatus::failed) return "failed: " + s.error;
  if (s.status == CellStatus::refused) return "refused: " + s.error;
  if (!s.ns_per_op) return std::string(name_of(s.status)) + (s.error.empty() ? "" : ": " + s.error);
  return "";
}

}  // namespace abench
