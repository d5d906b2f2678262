// What `abench history changes` writes (docs/history.md): changes.csv (a row a change, the
// cell named as compare.csv names it), changes.md (for an issue or a pull request:
// regressions first) and changes.json.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/store/history_changes.h"

namespace abench {

std::string changes_csv(const std::vector<SeriesChange>& changes);
std::string changes_markdown(const std::vector<SeriesChange>& changes, std::size_t series_count,
                             const ChangePointRule& rule);
nlohmann::json changes_json(const std::vector<SeriesChange>& changes, std::size_t series_count,
                            const ChangePointRule& rule);

}  // namespace abench
