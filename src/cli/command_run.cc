// abench run: measure a matrix and write results.json, results.csv and a table.
#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fmt/format.h>

#include "src/run/explain_pass.h"
#include "src/verdict/change_rule.h"
#include "src/verdict/context.h"
#include "src/explain/work_table.h"
#include "src/report/report_writer.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/exports/format_registry.h"
#include "src/cli/measure.h"
#include "src/run/progress.h"
#include "src/cli/stored_baseline.h"
#include "src/results/results_writers.h"
#include "src/run/worker_registry.h"
#include "src/run/execute.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/util/text.h"

namespace abench {

CLI::App* register_run_command(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand("run", "Measure a matrix; write results.json, results.csv and a table");
  cmd->add_option("--variant", o.variants,
                  "Measure this variant instead of the matrix's backends x policies; repeatable. As compare's "
                  "--baseline: backend=,policy=,entry=,plugin=,preload=,exe=,env=K=V,label=")
      ->allow_extra_args(false);
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Output directory (default: results/<time>-<matrix>)")->check(kNotEmpty);
  cmd->add_option("--save-baseline", o.save_baseline, "Also store the results as results/baselines/NAME/ for abench gate");
  add_resume_option(*cmd);
  return cmd;
}

namespace {

// The variants --variant names, each spec expanded over what it leaves open (the matrix's
// backends and policies), in the order given.
std::vector<Variant> variants_named(const RunOptions& o, const Matrix& matrix, const std::vector<std::string>& built) {
  std::vector<Variant> variants;
  for (const std::string& spec : o.variants)
    for (Variant& v : expand_variant_spec(parse_variant_spec(spec, "--variant", built), matrix))
      variants.push_back(std::move(v));
  // A stored baseline keeps the built workers (src/cli/stored_baseline.h), not a library,
  // plugin, other build or setting: the gate would measure something else beside it.
  if (o.save_baseline)
    for (const Variant& v : variants)
      if (!v.plugin.empty() || !v.preload.empty() || !v.exe.empty() || !v.env.empty())
        throw UsageError(fmt::format("option --save-baseline: variant '{}' names a plugin, preload, exe or env, which "
                                     "a stored baseline cannot keep (it stores the built workers); gate such a build "
                                     "with abench gate --baseline/--candidate or abench compare --gate", v.label()));
  return variants;
}


}  // namespace

int run_command(const RunOptions& o, const std::vector<std::string>& command_line) {
  if (o.save_baseline) baseline_store(*o.save_baseline, "--save-baseline");  // checked before anything runs
  const auto built = built_backends();
  Matrix matrix = load_measure_matrix(o.measure, built);
  const std::vector<Variant> variants = variants_named(o, matrix, built);
  Plan plan = o.measure.context        ? make_context_plan(matrix, variants.empty() ? matrix_variants(matrix) : variants,
                                                   matrix.protocol.seed)
              : variants.empty() ? make_plan(matrix, matrix.protocol.seed)
                                 : make_variant_plan(matrix, variants, matrix.protocol.seed);
  plan = shard_if_asked(std::move(plan), matrix, o.measure);
  check_resumed_command_trusted(o.measure, plan.variants, o.save_baseline);
  if (!variants.empty()) {  // what the user's build is checked before the run, as compare does
    ProcessLauncher launcher;
    preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  }
  const bool resume = !o.measure.resume.empty();
  const auto dir = prepare_output_dir(o.out, matrix.name, resume);  // after all validation
  const auto start = std::chrono::steady_clock::now();
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line, resume);
  write_formats(dir, results, o.measure.formats);
  if (results.interrupted_by) {
    fmt::print("{}\n", results_to_table(results));
    if (!o.measure.no_report) write_report_or_warn(dir);  // it draws what is there
    throw_if_interrupted(results, dir, "run");
  }
  std::optional<RunResults> instrumented;  // --explain: the work behind each time
  if (o.measure.explain) {
    instrumented = run_explain_pass(results.plan, matrix, dir, command_line);
    write_file_atomically(dir / "explain.csv", work_csv(results, *instrumented));
    throw_if_interrupted(*instrumented, dir / kExplainDirectory, "run");
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const RunTotals t = totals_of(results);
  fmt::print("{}\n", results_to_table(results));
  if (o.measure.context) {
    const VerdictSettings settings = context_settings(matrix.protocol);
    const std::vector<CellContext> context = context_of(results, settings);
    write_file_atomically(dir / "results.csv", results_to_csv(results, &context));
    fmt::print("{}\n", context_section(results, context, settings));
  }
  if (instrumented)
    fmt::print("Per operation, time beside the work counted under callgrind's simulators (--explain):\n{}\n",
               work_table(results, *instrumented));
  fmt::print("{} cells, {} failed, {} refused, {} unstable; {} processes per variant; wall time {} (counting runs {:.1f} s)\n",
             t.cells, t.failed, t.refused, t.unstable, results.protocol.processes, format_duration(wall), t.counting_s);
  fmt::print("results: {}/results.json, {}/results.csv{}\n", dir.string(), dir.string(),
             instrumented ? fmt::format(", {}/explain.csv (the counts: {}/{}/results.json)", dir.string(),
                                        dir.string(), kExplainDirectory)
                          : "");
  if (!o.measure.no_report) write_report_or_warn(dir);
  if (o.save_baseline) {
    const auto store = baseline_store(*o.save_baseline, "--save-baseline");
    prepare_baseline_store(store);
    write_result_files(store, results);
    // The workers too, so that the gate can measure this baseline again beside a candidate.
    store_baseline_workers(store, results.plan.variants);
    fmt::print("baseline '{}' stored: {}/results.json and its workers in {}/workers\n", *o.save_baseline,
               store.string(), store.string());
  }
  return t.failed ? kExitMeasurementFailed : kExitOk;
}

}  // namespace abench
