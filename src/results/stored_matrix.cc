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
    // The protocol as measured, its seed included: the same seed gives every process the cell
    // order its baseline process had, so the allocator history behind a cell is alike.
    try {
      read_protocol_fields(results.at("protocol"), m.protocol);
    } catch (const UsageError& e) {
      throw UsageError(std::string("malformed results: ") + e.what());
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("malformed results: its matrix or protocol: ") + e.what());
  }
  return m;
}

}  // namespace abench
