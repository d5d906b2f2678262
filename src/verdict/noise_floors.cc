#include "src/verdict/noise_floors.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "src/stats/statistics.h"
#include "src/verdict/compare.h"
#include "src/verdict/pairing.h"

namespace abench {

std::map<std::string, double> noise_floors(const std::vector<RunResults>& runs, const RunResults* stored,
                                           bool side_by_side) {
  std::map<std::string, double> floors;
  if (side_by_side) {
    for (const RunResults& results : runs)
      for (const CellPair& pair : pair_sides(results))
        if (pair.problem.empty()) {
          // The gate's own estimate, from the gate's own rule: paired by round.
          const double change = std::fabs(judge_change(pair.sides(), VerdictSettings{}.confidence, 0).change);
          floors[pair.key] = std::max(floors[pair.key], change);
        }
    return floors;
  }
  std::map<std::string, std::vector<double>> medians;  // per cell key, one per run
  std::set<std::string> measured;                      // a shard measures some of the stored cells
  auto add = [&](const RunResults& results) {
    for (const CellRecord& cell : results.cells)
      if (!cell.processes.empty()) medians[cell_key(results, cell)].push_back(median_of_medians(samples_of(cell)));
  };
  if (stored != nullptr) add(*stored);
  for (const RunResults& results : runs) {
    add(results);
    for (const CellRecord& cell : results.cells) measured.insert(cell_key(results, cell));
  }
  for (const auto& [key, values] : medians) {
    if (!measured.contains(key)) continue;
    double floor = 0;  // the largest change between any two of the runs
    for (std::size_t i = 0; i < values.size(); ++i)
      for (std::size_t j = 0; j < values.size(); ++j)
        if (i != j) floor = std::max(floor, std::fabs(values[i] / values[j] - 1));
    floors[key] = floor;
  }
  return floors;
}

nlohmann::json noise_about(const std::vector<RunResults>& runs, bool side_by_side) {
  return {{"schema", "abench.noise"},
          {"schema_version", 1},
          {"method", side_by_side ? "largest |change| between the two sides of interleaved A/A runs of the stored "
                                    "baseline's workers (what the gate measures)"
                                  : "largest |change| of the median between any two unchanged runs (the stored "
                                    "baseline of that name included)"},
          {"runs", runs.size()},
          {"processes", runs.empty() ? 0 : runs.front().protocol.processes},
          {"conditions", runs.empty() ? nlohmann::json::object() : conditions_to_json(runs.back().conditions)}};
}

}  // namespace abench
