// What every measuring workflow does before its first worker starts: the matrix with the
// request's overrides, the plan's shard, the trust a resumed command needs, the output
// directory.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/plan/measure_options.h"
#include "src/plan/plan.h"

namespace abench {

// Loads the matrix, applies the options (src/plan/measure_options.h), checks what this
// machine must have for them (--explain, --format), draws the seed.
Matrix load_measure_matrix(const MeasureOptions& options, const std::vector<std::string>& built);

// The matrix a results.json was measured with (its axes and protocol as run, seed
// included), with the options on top: a gate's fresh candidate is measured exactly like its
// baseline unless told otherwise.
Matrix matrix_of_results(const Matrix& stored, const MeasureOptions& options, const std::vector<std::string>& built);

// The plan, or with --shard K/N its shard K (src/plan/shard.h).
Plan shard_if_asked(Plan plan, const Matrix& matrix, const MeasureOptions& options);

// A resumed command runs the code its variants name (exe=, plugin=, preload=, env=) and
// stores a baseline only when abench recorded writing that command there or the user trusts
// it (src/run/run_origin.h): UsageError otherwise, before anything runs.
void check_resumed_command_trusted(const MeasureOptions& options, const std::vector<Variant>& variants,
                                   const std::optional<std::string>& save_baseline = std::nullopt);

}  // namespace abench
