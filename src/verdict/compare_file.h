// compare.json: its one writer and its one reader. The reader takes a file as data from
// elsewhere: every field is checked, each verdict must follow from its interval by the one
// rule (change_rule.h) at the file's own confidence, minimum effect and margin, the tallies must
// agree with the rows, and what follows from the rows (geometric means, warnings) is
// derived again, never taken from the file.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "src/verdict/compare.h"

namespace abench {

// 2: verdicts same and unclear (version 1's "~" split by method.detect), and each row's
// detectable_change. Version 1 files are read, their "~" judged again as same or unclear.
inline constexpr int kCompareSchemaVersion = 2;

// A judgement's fields, as compare.json rows and gate.json cells both hold them.
void put_change(nlohmann::json& j, const std::optional<Judgement>& judgement, const std::string& problem);

nlohmann::json comparison_json(const Comparison& c);
// Throws UsageError naming the file and the field.
Comparison comparison_from_json(const nlohmann::json& j, const std::string& path);
Comparison load_comparison(const std::string& path);

}  // namespace abench
