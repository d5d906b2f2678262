// The one reader of results.json: the file back into the RunResults that wrote it
// (results_to_json in results_json.cc is the other half), validated as it is read. The gate,
// calibrate, resume, merge and the report read abench's results through it.
//
// A results file may come from someone else (a baseline, a shard, a directory handed to
// report): every field is checked for its type, its range (finite numbers, whole numbers in
// range, non-empty sample lists of equal length), its enum names, and its cross-references
// (each cell's id is its position, its variant one of the file's variants, its backend that
// variant's, each compare cell with one partner on the other side). Anything else is a
// UsageError (exit 2) naming the file and the field, before anything is measured or written.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

RunResults results_from_json(const nlohmann::json& json, const std::string& path);

// Reads path (src/util/json_file.h's limits) and decodes it.
RunResults load_results(const std::string& path);
// The results file at `relative` below `root` (a shard's run1/results.json): through no link
// below root (read_json_file_below).
RunResults load_results_below(const std::filesystem::path& root, const std::filesystem::path& relative);

}  // namespace abench
