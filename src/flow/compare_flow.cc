#include "src/flow/compare_flow.h"

#include <chrono>

#include <fmt/format.h>

#include "src/exports/format_registry.h"
#include "src/explain/explain_compare.h"
#include "src/flow/gate_flow.h"
#include "src/flow/measure_setup.h"
#include "src/flow/verdict_files.h"
#include "src/flow/output_directory.h"
#include "src/report/report_writer.h"
#include "src/results/results_writers.h"
#include "src/run/execute.h"
#include "src/run/explain_pass.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"
#include "src/util/atomic_file.h"
#include "src/util/comment_markdown.h"
#include "src/util/errors.h"
#include "src/util/text.h"
#include "src/verdict/context.h"

namespace abench {
namespace {

// The compare's plan, its variants checked by starting each once (preflight).
Plan compare_plan(const CompareRequest& r, const Matrix& matrix, const MeasureOptions& measure) {
  const auto built = built_backends();
  const auto baselines = expand_variant_spec(parse_variant_spec(r.baseline, "--baseline", built), matrix);
  const auto candidates = expand_variant_spec(parse_variant_spec(r.candidate, "--candidate", built), matrix);
  if (baselines.size() != candidates.size())
    throw UsageError(
        fmt::format("--baseline stands for {} variants and --candidate for {}: name the "
                    "backend and policy on both sides or on neither",
                    baselines.size(), candidates.size()));
  if (measure.context && r.gate)
    throw UsageError(
        "option --context: not with --gate: a gate judges the figures the matrix gives; gate in a compare "
        "of its own and read --context's marks beside it");
  Plan plan =
      shard_if_asked(measure.context ? make_compare_context_plan(matrix, baselines, candidates, matrix.protocol.seed)
                                     : make_compare_plan(matrix, baselines, candidates, matrix.protocol.seed),
                     matrix, measure);
  check_resumed_command_trusted(measure, plan.variants);  // before the start-up check runs any of it
  ProcessLauncher launcher;
  preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  return plan;
}

VerdictSettings settings_of(const CompareRequest& r) {
  VerdictSettings settings;
  settings.min_effect = r.min_effect_percent / 100;
  settings.detect = r.detect_percent / 100;
  settings.confidence = r.confidence;
  return settings;
}

// The comparison and its files; with --context the verdicts are the in-matrix sides', each
// side's fresh twin saying which of its figures owe to the cells before them.
std::string judge_and_write(const RunResults& results, const std::optional<RunResults>& instrumented, bool context,
                            const VerdictSettings& settings, const std::filesystem::path& dir, std::size_t* rows) {
  std::vector<CellContext> marks;
  Comparison comparison = compare_results(context ? in_matrix_view(results) : results, settings);
  if (context) {
    marks = context_of(results, settings);
    mark_context(comparison, marks);
    write_file_atomically(dir / "results.csv", results_to_csv(results, &marks));
  }
  if (instrumented) explain_comparison(comparison, *instrumented);
  const std::string context_text = context ? context_section(results, marks, settings, true) : "";
  *rows = comparison.rows.size();
  return terminal_part(write_compare_files(comparison, dir, context_text)) + context_text;
}

}  // namespace

CompareOutcome run_compare(const CompareRequest& r, const std::vector<std::string>& command_line) {
  const std::optional<RunIdentity> recording = prepare_recording(r.history);
  MeasureOptions measure = r.measure;
  // A budget aims at --detect's width: an interval that narrow is within ±detect or clear of 0.
  if (measure.protocol.has("until_interval.budget_seconds") && !measure.protocol.has("until_interval.width_percent"))
    measure.protocol.give("until_interval.width_percent", r.detect_percent);
  Matrix matrix = load_measure_matrix(measure, built_backends());
  use_paired_protocol(matrix.protocol, measure, r.confidence);
  Plan plan = compare_plan(r, matrix, measure);
  const bool resume = !measure.resume.empty();
  const auto dir = prepare_output_dir(r.out, "compare-" + matrix.name, resume);

  const auto start = std::chrono::steady_clock::now();
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line, resume);
  write_formats(dir, results, measure.formats);
  std::optional<RunResults> instrumented;  // --explain: the work behind each time
  if (measure.explain && !results.interrupted_by)
    instrumented = run_explain_pass(results.plan, matrix, dir, command_line);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const VerdictSettings settings = settings_of(r);
  std::size_t rows = 0;
  const std::string shown = judge_and_write(results, instrumented, measure.context, settings, dir, &rows);
  throw_if_interrupted(results, dir, "compare");  // the files above hold what is complete
  if (instrumented) throw_if_interrupted(*instrumented, dir / kExplainDirectory, "compare");

  CompareOutcome outcome;
  outcome.failed_cells = totals_of(results).failed;
  fmt::print("{}\n", shown);
  fmt::print("{} cells a side{}, {} failed; {} processes a side; wall time {}\n", rows,
             measure.context ? " (each also in fresh processes)" : "", outcome.failed_cells, results.protocol.processes,
             format_duration(wall));
  fmt::print("results: {}/compare.md, compare.csv, compare.json, results.json, results.csv\n", dir.string());
  if (recording) record_directory(r.history, *recording, dir);
  if (!r.gate) {
    if (!measure.no_report) write_report_or_warn(dir);
    return outcome;
  }
  outcome.gate = gate_compare(results, matrix, dir, r.gate_rules, settings, !r.no_confirm, command_line);
  write_gate_files(*outcome.gate, dir, !measure.no_report);  // the report after gate.json
  return outcome;
}

}  // namespace abench
