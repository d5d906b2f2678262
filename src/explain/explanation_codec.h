// A compare row's explanation in compare.csv and compare.json, and read back from
// compare.json as data: the changes and the reading are derived from the figures there,
// never taken from the file (a mismatch is refused, naming the field).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/explain/work_figures.h"
#include "src/util/json_field.h"

namespace abench {

// compare.csv: "instructions_before", "instructions_after", "instructions_change", ... for
// each figure, then "work_repeatability", "reading", "work_unavailable".
std::vector<std::string> explanation_csv_header();
std::vector<std::string> explanation_csv_cells(const PairExplanation& e);

// The same fields in a compare.json row (nulls where a side has none).
void put_explanation(nlohmann::json& row, const PairExplanation& e);
// time: the row's verdict as the reading rule sees it.
PairExplanation explanation_at(const JsonField& row, const TimeChange& time);

// compare.json's "explain": how the figures were counted and read.
nlohmann::json explain_method_json();

}  // namespace abench
