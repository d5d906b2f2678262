// The matrix and protocol a results.json was measured with, read back from its "matrix"
// and "protocol" fields.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/plan/matrix.h"

namespace abench {

// The same without the command line: the matrix and protocol exactly as stored. `built`:
// the backends it may name (parse_backend).
Matrix matrix_as_stored(const nlohmann::json& results, const std::vector<std::string>& built);

}  // namespace abench
