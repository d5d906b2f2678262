// A cell's noise floor: how far an unchanged build moves, measured by calibrate and judged
// again by merge from the merged runs (never copied from a shard's noise.json).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

// Side by side (each run a compare of the stored workers against themselves): the largest
// |change| the gate's rule gives a cell over the runs. Sequential: the largest change of a
// cell's median between any two runs, `stored` (the baseline's own figures; may be null)
// among them, for the cells the runs measured.
std::map<std::string, double> noise_floors(const std::vector<RunResults>& runs, const RunResults* stored,
                                           bool side_by_side);

// What noise.json says of how its floors were found, beside them.
nlohmann::json noise_about(const std::vector<RunResults>& runs, bool side_by_side);

}  // namespace abench
