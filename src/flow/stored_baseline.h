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

#include "src/plan/matrix.h"
#include "src/plan/measure_options.h"
#include "src/plan/plan.h"
#include "src/plan/variant.h"

namespace abench {

// source_directory()/results/baselines.
std::filesystem::path baselines_directory();
// source_directory()/results/baselines/NAME, NAME checked (src/util/names.h) as `what`.
std::filesystem::path baseline_store(const std::string& name, const std::string& what);

// Makes the store's directory ready to write, as an output directory is: never a link, and
// held by this command alone (src/util/directory_lock.h).
void prepare_baseline_store(const std::filesystem::path& store);

// Copies each variant's timed worker into `store`/workers/ (each file atomically).
void store_baseline_workers(const std::filesystem::path& store, const std::vector<Variant>& variants);

// The workers/ directory beside a baseline's results.json, if there is one and abench stored
// it (under baselines_directory()), or trust_anywhere (--run-stored-workers); else "", with
// *not_trusted set to the directory that was not trusted.
std::filesystem::path stored_workers_dir(const std::filesystem::path& results_json, bool trust_anywhere,
                                         std::string* not_trusted);

// The stored workers as variants, one per backend and policy of `matrix`, labelled
// "<backend>/<policy>@baseline". Throws UsageError when a backend's worker is missing.
std::vector<Variant> stored_worker_variants(const std::filesystem::path& workers, const Matrix& matrix);

// The protocol of a side-by-side measurement: no counting runs (counts are not gated, and
// stored workers come without their counters) and at least 5 processes a side unless
// --processes was given: the rounds a verdict at `confidence` needs.
void use_side_by_side_protocol(Matrix& matrix, const MeasureOptions& measure, double confidence);

// The compare plan of the stored workers (baseline side) against the built ones, its
// variants checked by starting each once (preflight). Throws UsageError.
Plan side_by_side_plan(const std::filesystem::path& workers, const Matrix& matrix);

// results/baselines/NAME/<file>, or NAME itself when it is a path to an existing file or
// directory (a directory means its results.json).
std::string resolve_stored(const std::string& name_or_path, const char* file);

}  // namespace abench
