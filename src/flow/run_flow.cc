#include "src/flow/run_flow.h"

#include <chrono>

#include <fmt/format.h>

#include "src/exports/format_registry.h"
#include "src/explain/work_table.h"
#include "src/flow/measure_setup.h"
#include "src/flow/stored_baseline.h"
#include "src/flow/output_directory.h"
#include "src/report/report_writer.h"
#include "src/results/results_writers.h"
#include "src/run/execute.h"
#include "src/run/explain_pass.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/text.h"
#include "src/verdict/context.h"

namespace abench {
namespace {

// The variants --variant names, each spec expanded over what it leaves open (the matrix's
// backends and policies), in the order given.
std::vector<Variant> variants_named(const RunRequest& r, const Matrix& matrix, const std::vector<std::string>& built) {
  std::vector<Variant> variants;
  for (const std::string& spec : r.variants)
    for (Variant& v : expand_variant_spec(parse_variant_spec(spec, "--variant", built), matrix))
      variants.push_back(std::move(v));
  // A stored baseline keeps the built workers (src/flow/stored_baseline.h), not a library,
  // plugin, other build or setting: the gate would measure something else beside it.
  if (r.save_baseline)
    for (const Variant& v : variants)
      if (!v.plugin.empty() || !v.preload.empty() || !v.exe.empty() || !v.env.empty())
        throw UsageError(
            fmt::format("option --save-baseline: variant '{}' names a plugin, preload, exe or env, which "
                        "a stored baseline cannot keep (it stores the built workers); gate such a build "
                        "with abench gate --baseline/--candidate or abench compare --gate",
                        v.label()));
  return variants;
}

// The run's plan, checked before anything runs; a user's build is started once first, as
// compare does.
Plan run_plan_of(const RunRequest& r, const Matrix& matrix) {
  const auto built = built_backends();
  const std::vector<Variant> variants = variants_named(r, matrix, built);
  const std::uint64_t seed = matrix.protocol.seed;
  Plan plan = r.measure.context ? make_context_plan(matrix, variants.empty() ? matrix_variants(matrix) : variants, seed)
              : variants.empty() ? make_plan(matrix, seed)
                                 : make_variant_plan(matrix, variants, seed);
  plan = shard_if_asked(std::move(plan), matrix, r.measure);
  check_resumed_command_trusted(r.measure, plan.variants, r.save_baseline);
  if (!variants.empty()) {
    ProcessLauncher launcher;
    preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  }
  return plan;
}

// The table, --context's marks and --explain's work beside the times.
void print_and_mark(const RunResults& results, const std::optional<RunResults>& instrumented, const Matrix& matrix,
                    bool context, const std::filesystem::path& dir) {
  fmt::print("{}\n", results_to_table(results));
  if (context) {
    const VerdictSettings settings = context_settings(matrix.protocol);
    const std::vector<CellContext> marks = context_of(results, settings);
    write_file_atomically(dir / "results.csv", results_to_csv(results, &marks));
    fmt::print("{}\n", context_section(results, marks, settings));
  }
  if (instrumented)
    fmt::print("Per operation, time beside the work counted under callgrind's simulators (--explain):\n{}\n",
               work_table(results, *instrumented));
}

void store_baseline(const std::string& name, const RunResults& results) {
  const auto store = baseline_store(name, "--save-baseline");
  prepare_baseline_store(store);
  write_result_files(store, results);
  // The workers too, so that the gate can measure this baseline again beside a candidate.
  store_baseline_workers(store, results.plan.variants);
  fmt::print("baseline '{}' stored: {}/results.json and its workers in {}/workers\n", name, store.string(),
             store.string());
}

}  // namespace

RunOutcome run_matrix(const RunRequest& r, const std::vector<std::string>& command_line) {
  if (r.save_baseline) baseline_store(*r.save_baseline, "--save-baseline");  // checked before anything runs
  const std::optional<RunIdentity> recording = prepare_recording(r.history);
  Matrix matrix = load_measure_matrix(r.measure, built_backends());
  Plan plan = run_plan_of(r, matrix);
  const bool resume = !r.measure.resume.empty();
  const auto dir = prepare_output_dir(r.out, matrix.name, resume);  // after all validation
  const auto start = std::chrono::steady_clock::now();
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line, resume);
  write_formats(dir, results, r.measure.formats);
  if (results.interrupted_by) {
    fmt::print("{}\n", results_to_table(results));
    if (!r.measure.no_report) write_report_or_warn(dir);  // it draws what is there
    throw_if_interrupted(results, dir, "run");
  }
  std::optional<RunResults> instrumented;  // --explain: the work behind each time
  if (r.measure.explain) {
    instrumented = run_explain_pass(results.plan, matrix, dir, command_line);
    write_file_atomically(dir / "explain.csv", work_csv(results, *instrumented));
    throw_if_interrupted(*instrumented, dir / kExplainDirectory, "run");
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  print_and_mark(results, instrumented, matrix, r.measure.context, dir);
  const RunTotals t = totals_of(results);
  fmt::print(
      "{} cells, {} failed, {} refused, {} unstable; {} processes per variant; wall time {} (counting runs {:.1f} s)\n",
      t.cells, t.failed, t.refused, t.unstable, results.protocol.processes, format_duration(wall), t.counting_s);
  fmt::print("results: {}/results.json, {}/results.csv{}\n", dir.string(), dir.string(),
             instrumented ? fmt::format(", {}/explain.csv (the counts: {}/{}/results.json)", dir.string(), dir.string(),
                                        kExplainDirectory)
                          : "");
  if (!r.measure.no_report) write_report_or_warn(dir);
  if (r.save_baseline) store_baseline(*r.save_baseline, results);
  if (recording) record_directory(r.history, *recording, dir);
  return {t.failed};
}

}  // namespace abench
