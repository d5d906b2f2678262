// One writer a format; each only serializes RunResults (docs/results.md).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

nlohmann::json results_to_json(const RunResults& results);

// How this build's workers size their batches (warm-up, count, stretch, long batches):
// results.json's protocol.batch for a run of this build.
nlohmann::json batch_rules_json();

// run --context: a cell measured with the matrix's history against itself in fresh
// processes (src/verdict/context.h computes it from the results).
struct CellContext {
  int cell = -1;                    // the in-matrix cell's id
  int fresh_cell = -1;              // the same work's cell in fresh processes
  std::optional<double> fresh;      // the fresh processes' figure (median of process medians)
  std::optional<double> change;     // in matrix / fresh - 1
  std::optional<double> low, high;  // its interval
  std::string flag;                 // "sensitive", "-", or why there is no judgement: "undecided", "failed"
};
// With `context`, each in-matrix row gets fresh_<per-op>, context_change, context_low,
// context_high and context; a fresh row's context reads "fresh".
std::string results_to_csv(const RunResults& results, const std::vector<CellContext>* context = nullptr);
std::string results_to_table(const RunResults& results);

// A shard's workers[] as the whole plan numbers its cells (plan_ids[i] for the shard's cell
// i), each marked with the shard that ran it: what abench merge keeps of them.
nlohmann::json workers_in_plan(const nlohmann::json& workers, const std::vector<int>& plan_ids, int shard);

// results.json and results.csv in dir, each written atomically.
void write_result_files(const std::filesystem::path& dir, const RunResults& results);

}  // namespace abench
