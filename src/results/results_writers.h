// One writer a format; each only serializes RunResults (docs/results.md).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

nlohmann::json results_to_json(const RunResults& results);
std::string results_to_csv(const RunResults& results);
std::string results_to_table(const RunResults& results);

// A shard's workers[] as the whole plan numbers its cells (plan_ids[i] for the shard's cell
// i), each marked with the shard that ran it: what abench merge keeps of them.
nlohmann::json workers_in_plan(const nlohmann::json& workers, const std::vector<int>& plan_ids, int shard);

// results.json and results.csv in dir, each written atomically.
void write_result_files(const std::filesystem::path& dir, const RunResults& results);

}  // namespace abench
