#include "src/results/result_file.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/util/errors.h"
#include "src/plan/matrix.h"
#include "src/util/text.h"
#include "src/results/results.h"

namespace abench {

std::string cell_key(const nlohmann::json& c) {
  return fmt::format("{}/{}/{}/{}/{}:{}/{}", c.at("backend").get<std::string>(), c.at("policy").get<std::string>(),
                     c.at("workload").get<std::string>(), whole_number<std::uint64_t>(c.at("size"), "size"),
                     whole_number<std::uint64_t>(c.at("requested_align"), "requested_align"),
                     whole_number<std::uint64_t>(c.at("preferred_align"), "preferred_align"),
                     whole_number<std::uint64_t>(c.at("live"), "live"));
}

StoredResults results_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object() || j.value("schema", "") != "abench.results")
    throw UsageError(path + ": not an abench results file (field 'schema' is not \"abench.results\"; "
                            "give the results.json written by abench run or compare)");
  if (j.value("schema_version", 0) != kResultsSchemaVersion)
    throw UsageError(fmt::format("{}: field 'schema_version' is {}, this abench reads version {}", path,
                                 j.value("schema_version", 0), kResultsSchemaVersion));
  StoredResults r;
  r.path = path;
  r.json = j;
  try {
    r.conditions = j.at("conditions");
    r.machine_fingerprint = r.conditions.value("machine_fingerprint", "");
    r.matrix_name = j.at("matrix").value("name", "");
    r.seed = j.at("protocol").value("seed", std::uint64_t{0});
    r.started_at = j.value("started_at", "");
    r.run_id = j.value("run_id", "");
    r.interleave_batches = j.at("protocol").value("interleave_batches", false);
    Measure measure = Measure::time;
    if (const std::string name = j.at("protocol").value("measure", "time"); !measure_named(name, measure))
      throw UsageError(fmt::format("{}: field 'protocol.measure' is '{}' (allowed: {})", path, name,
                                   kMeasureNames));
    const MetricNames& names = metric_names(measure);
    const std::string metric = names.per_op;
    const auto& cells = j.at("cells");
    if (!cells.is_array()) throw UsageError(fmt::format("{}: field 'cells' must be a list", path));
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const auto& c = cells[i];
      // Errors name the cell: nlohmann's say only what type was expected.
      try {
        StoredCell cell;
        cell.key = cell_key(c);
        cell.status = c.at("status").get<std::string>();
        cell.metric = metric;
        cell.variant = c.value("variant", "");
        cell.side = c.value("side", "");
        const auto& processes = c.at("processes");
        for (std::size_t k = 0; k < processes.size(); ++k) {
          const auto& p = processes[k];
          cell.samples.push_back(p.at(names.samples).get<std::vector<double>>());
          if (cell.samples.back().empty())  // abench never writes one: nothing to judge it by
            throw UsageError(fmt::format("{}: malformed results: field 'cells[{}].processes[{}].{}' is empty", path, i,
                                         k, names.samples));
          cell.rounds.push_back(p.contains("round") ? whole_number<int>(p["round"], "round") : 0);
        }
        r.cells.push_back(std::move(cell));
      } catch (const nlohmann::json::exception& e) {
        throw UsageError(fmt::format("{}: malformed results: in cells[{}]: {}", path, i, e.what()));
      } catch (const std::invalid_argument& e) {
        throw UsageError(fmt::format("{}: malformed results: in cells[{}]: {}", path, i, e.what()));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed results: {}", path, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{}: malformed results: {}", path, e.what()));
  }
  return r;
}

StoredResults load_results_file(const std::string& path) {
  return results_from_json(read_json_file(path, "the results file"), path);
}

}  // namespace abench

#include <filesystem>
#include <set>

namespace abench {

std::map<std::string, double> load_noise_file(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw UsageError(path + ": cannot read the noise file (write one with abench calibrate --save-noise)");
  const nlohmann::json j = read_json_file(path, "the noise file");
  try {
    if (!j.is_object() || j.value("schema", "") != "abench.noise") throw UsageError(path + ": not an abench noise file");
    const auto& cells = j.at("cells");
    if (!cells.is_object()) throw UsageError(fmt::format("{}: field 'cells' must be an object of cell: floor", path));
    std::map<std::string, double> floors;
    for (const auto& [cell, value] : cells.items()) {
      // A floor widens the cell's threshold: a huge one would make the gate pass anything.
      if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 10))
        throw UsageError(fmt::format("{}: field 'cells.{}' is {}: a noise floor is a fraction from 0 to 10 (1000%)",
                                     path, printable(cell.substr(0, 200)), printable(value.dump().substr(0, 40))));
      floors[cell] = value.get<double>();
    }
    return floors;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed noise file: {}", path, e.what()));
  }
}

}  // namespace abench
