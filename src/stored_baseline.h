// A baseline stored under results/baselines/NAME/: results.json (its figures, from run
// --save-baseline), noise.json (from calibrate) and workers/, the timed worker executables
// that measured it. With the workers, gate and calibrate measure the baseline again, side
// by side with the candidate in one interleaved run: on a shared machine the figures of a
// run made earlier drift by several percent in every cell at once (docs/ci.md), which no
// threshold that still catches a 5% regression can absorb.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/matrix.h"
#include "src/measure.h"
#include "src/plan.h"
#include "src/variant.h"

namespace abench {

// source_directory()/results/baselines/NAME.
std::filesystem::path baseline_store(const std::string& name);

// Copies each variant's timed worker into `store`/workers/ (each file atomically).
void store_baseline_workers(const std::filesystem::path& store, const std::vector<Variant>& variants);

// The directory holding a baseline's results.json, when it also holds workers/; else "".
std::filesystem::path stored_workers_dir(const std::filesystem::path& results_json);

// The stored workers as variants, one per backend and policy of `matrix`, labelled
// "<backend>/<policy>@baseline". Throws UsageError when a backend's worker is missing.
std::vector<Variant> stored_worker_variants(const std::filesystem::path& workers, const Matrix& matrix);

// The protocol of a side-by-side measurement: no counting runs (counts are not gated, and
// stored workers come without their counters) and at least 5 processes a side unless
// --processes was given.
void use_side_by_side_protocol(Matrix& matrix, const MeasureOptions& measure);

// The compare plan of the stored workers (baseline side) against the built ones, its
// variants checked by starting each once (preflight). Throws UsageError.
Plan side_by_side_plan(const std::filesystem::path& workers, const Matrix& matrix);

}  // namespace abench
