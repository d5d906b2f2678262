#include "src/results/noise_file.h"

#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"

namespace abench {

nlohmann::json noise_to_json(const NoiseFile& noise) {
  nlohmann::json j = noise.about;
  j["schema"] = "abench.noise";
  if (!j.contains("schema_version")) j["schema_version"] = 1;
  j["cells"] = nlohmann::json::object();
  for (const auto& [cell, floor] : noise.floors) j["cells"][cell] = floor;
  return j;
}

NoiseFile read_noise_file(const std::string& path) {
  if (!std::filesystem::exists(path))
    throw UsageError(path + ": cannot read the noise file (write one with abench calibrate --save-noise)");
  const nlohmann::json j = read_json_file(path, "the noise file");
  try {
    if (!j.is_object() || j.value("schema", "") != "abench.noise")
      throw UsageError(path + ": not an abench noise file");
    const auto& cells = j.at("cells");
    if (!cells.is_object()) throw UsageError(fmt::format("{}: field 'cells' must be an object of cell: floor", path));
    NoiseFile noise;
    for (const auto& [cell, value] : cells.items()) {
      // A floor widens the cell's threshold: a huge one would make the gate pass anything.
      if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 10))
        throw UsageError(fmt::format("{}: field 'cells.{}' is {}: a noise floor is a fraction from 0 to 10 (1000%)",
                                     path, printable(cell.substr(0, 200)), printable(value.dump().substr(0, 40))));
      noise.floors[cell] = value.get<double>();
    }
    noise.about = j;
    noise.about.erase("cells");
    return noise;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed noise file: {}", path, e.what()));
  }
}

std::map<std::string, double> load_noise_file(const std::string& path) { return read_noise_file(path).floors; }

}  // namespace abench
