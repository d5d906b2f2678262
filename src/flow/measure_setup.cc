#include "src/flow/measure_setup.h"

#include <algorithm>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/exports/format_registry.h"
#include "src/plan/shard.h"
#include "src/run/explain_pass.h"
#include "src/run/worker_registry.h"
#include "src/util/directory_lock.h"
#include "src/util/errors.h"
#include "src/util/names.h"
#include "src/util/text.h"
#include "src/util/timestamp.h"

namespace abench {
namespace {

// What this machine must have for the options: checked after every rule of the options.
void check_possible_here(const MeasureOptions& o, Measure measure) {
  if (o.explain) check_explain_possible_here();
  check_formats(o.formats, measure);
}

}  // namespace

void check_resumed_command_trusted(const MeasureOptions& o, const std::vector<Variant>& variants,
                                   const std::optional<std::string>& save_baseline) {
  if (o.resume.empty() || o.resume_untrusted_because.empty()) return;
  std::vector<std::string> named;
  for (const Variant& v : variants) {
    const auto add = [&](const char* key, const std::string& value) {
      if (!value.empty()) named.push_back(fmt::format("{}={}", key, printable(value)));
    };
    add("exe", v.exe);
    add("plugin", v.plugin);
    add("preload", v.preload);
    for (const auto& [key, value] : v.env) add("env", key + "=" + value);
  }
  if (save_baseline) named.push_back(fmt::format("--save-baseline {}", printable(*save_baseline)));
  if (named.empty()) return;
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  throw UsageError(fmt::format(
      "--resume {}: the command stored in {}/results.json runs code or stores a baseline it names ({}), and abench "
      "cannot vouch for it: {}; nothing was run. If you trust that command, resume with --trust-stored-command",
      o.resume, o.resume, fmt::join(named, ", "), o.resume_untrusted_because));
}

Matrix matrix_of_results(const Matrix& stored, const MeasureOptions& o, const std::vector<std::string>& built) {
  Matrix m = stored;
  for (const std::string& backend : m.backends) parse_backend(backend, built, "baseline's matrix");
  apply_measure_options(m, o, built);
  check_possible_here(o, m.protocol.measure);
  return m;
}

Matrix load_measure_matrix(const MeasureOptions& o, const std::vector<std::string>& built) {
  Matrix matrix = load_matrix(o.matrix, built, !o.backends.empty());
  apply_measure_options(matrix, o, built);
  check_possible_here(o, matrix.protocol.measure);
  // Deterministic mode repeats exactly only with the same cell orders: a fixed seed.
  if (matrix.protocol.seed == 0 && row_of(matrix.protocol.measure).exact) matrix.protocol.seed = 1;
  // Every shard must plan the same cell orders, and merge refuses shards of two seeds.
  if (matrix.protocol.seed == 0 && o.shard)
    throw UsageError(
        "option --shard: give every shard the same --seed (e.g. --seed 1, or the CI run's number): each "
        "machine would draw its own from the clock, and shards of different seeds do not merge");
  if (matrix.protocol.seed == 0)
    matrix.protocol.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32) | 1;
  return matrix;
}

Plan shard_if_asked(Plan plan, const Matrix& matrix, const MeasureOptions& options) {
  if (!options.shard) return plan;
  return shard_plan(std::move(plan), matrix.protocol, parse_shard(*options.shard, "--shard"));
}

}  // namespace abench
