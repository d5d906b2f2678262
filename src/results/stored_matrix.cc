#include "src/results/stored_matrix.h"

#include <fmt/format.h>

#include "src/plan/protocol_fields.h"
#include "src/util/errors.h"
#include "src/util/names.h"

namespace abench {

Matrix matrix_as_stored(const nlohmann::json& results, const std::vector<std::string>& built) {
  Matrix m;
  try {
    const auto& axes = results.at("matrix");
    const auto& p = results.at("protocol");
    const std::string where = "field 'matrix'";
    m.name = checked_name(axes.value("name", "baseline"), "field 'matrix.name'");
    m.path = axes.value("path", "");
    m.description = axes.value("description", "");
    for (const auto& b : axes.at("backends")) m.backends.push_back(parse_backend(b.get<std::string>(), built, where));
    for (const auto& x : axes.at("policies")) m.policies.push_back(parse_policy(x.get<std::string>(), where));
    for (const auto& x : axes.at("workloads")) m.workloads.push_back(parse_workload(x.get<std::string>(), where));
    for (const auto& x : axes.at("sizes")) m.sizes.push_back(parse_size(x, where));
    for (const auto& x : axes.at("alignments")) m.alignments.push_back(parse_alignment(x, where));
    for (const auto& x : axes.at("live")) m.lives.push_back(parse_live(x, where));
    if (axes.contains("entry") && axes["entry"].is_string())
      m.entry_set = parse_entry_set(axes["entry"].get<std::string>(), where);
    RunProtocol& r = m.protocol;
    if (!measure_named(p.value("measure", "time"), r.measure))
      throw UsageError(fmt::format("field 'protocol.measure' is not one of {}", measure_names()));
    if (!p.is_object()) throw UsageError("malformed results: field 'protocol' must be an object");
    for (const ProtocolField& f : protocol_fields()) {
      const auto value = p.find(f.key);
      if (value == p.end() && !f.before_recorded)
        throw UsageError(fmt::format("malformed results: field 'protocol.{}' is missing", f.key));
      const nlohmann::json given = value != p.end() ? *value : value_before_recorded(f);
      if (const std::string wrong = set_protocol_field(f, given, r); !wrong.empty())
        throw UsageError(fmt::format("malformed results: field 'protocol.{}' {}", f.key, wrong));
    }
    r.order = p.value("order", "shuffled") == "matrix" ? CellOrder::matrix : CellOrder::shuffled;
    if (const std::string wrong = set_process_mode(p.value("process_mode", nlohmann::json("process-per-variant")), r);
        !wrong.empty())
      throw UsageError(fmt::format("malformed results: field 'protocol.process_mode' {}", wrong));
    r.interleave_batches = p.value("interleave_batches", false);
    r.cpu = p.at("cpu").is_number() ? p.at("cpu").get<int>() : -1;
    // The same seed gives every process the cell order its baseline process had, so the
    // allocator history behind each cell is the same on both sides.
    r.seed = p.value("seed", std::uint64_t{0});
    if (p.contains("until_interval")) {
      const auto& adaptive = p.at("until_interval");
      r.until_interval = adaptive.at("width_percent").get<double>() / 100;
      r.max_rounds = adaptive.at("max_rounds").get<int>();
      r.interval_confidence = adaptive.at("confidence").get<double>();
      r.budget_s = adaptive.value("budget_seconds", 0.0);  // none before --budget
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("malformed results: its matrix or protocol: ") + e.what());
  }
  return m;
}

}  // namespace abench
