// abench compare: two variants side by side, processes alternating, with a verdict per
// cell whose interval includes the variation between processes (docs/compare.md).
#include <chrono>

#include <fmt/format.h>

#include "src/explain/explain_compare.h"
#include "src/run/explain_pass.h"
#include "src/verdict/compare_file.h"
#include "src/report/report_writer.h"
#include "src/util/atomic_file.h"
#include "src/verdict/compare.h"
#include "src/verdict/context.h"
#include "src/results/results_writers.h"
#include "src/util/errors.h"
#include "src/exports/format_registry.h"
#include "src/cli/gate_report.h"
#include "src/cli/measure.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/progress.h"
#include "src/run/worker_registry.h"
#include "src/run/execute.h"
#include "src/util/comment_markdown.h"
#include "src/util/text.h"

namespace abench {

CLI::App* register_compare_command(CLI::App& app, CompareOptions& o) {
  CLI::App* cmd = app.add_subcommand("compare", "Compare a baseline and a candidate variant cell by cell");
  cmd->add_option("--baseline", o.baseline, "Variant: backend=,policy=,plugin=,preload=,exe=,env=K=V,label=")->required();
  cmd->add_option("--candidate", o.candidate, "Variant, as --baseline")->required();
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--min-effect", o.min_effect_percent, "Smallest change (%) ever called significant")
      ->check(CLI::Range(0.0, 100.0))->capture_default_str();
  cmd->add_option("--detect", o.detect_percent,
                  "PCT: the change you want to detect; a cell whose whole interval lies within ±PCT is 'same', one "
                  "neither called nor that 'unclear' (docs/statistics.md)")
      ->check(CLI::Range(0.1, 100.0))->capture_default_str();
  cmd->add_option("--confidence", o.confidence, "Confidence of the interval")
      ->check(CLI::Range(0.5, 0.999))->capture_default_str();
  cmd->add_option("--out", o.out, "Output directory (default: results/<time>-compare-<matrix>)")->check(kNotEmpty);
  cmd->add_flag("--gate", o.gate, "Also gate the candidate against the baseline (exit 1 on a regression)");
  cmd->add_flag("--no-confirm", o.no_confirm,
                "With --gate: do not measure the variants of regressed cells a second time to confirm them");
  add_gate_rule_options(*cmd, o.gate_rules);
  add_resume_option(*cmd);
  return cmd;
}

int compare_command(const CompareOptions& o, const std::vector<std::string>& command_line) {
  const auto built = built_backends();
  MeasureOptions measure = o.measure;
  // A budget aims at --detect's width: an interval that narrow is within ±detect or clear of 0.
  if (measure.budget_s && !measure.until_interval_percent) measure.until_interval_percent = o.detect_percent;
  Matrix matrix = load_measure_matrix(measure, built);
  use_paired_protocol(matrix.protocol, measure, o.confidence);
  const auto baselines = expand_variant_spec(parse_variant_spec(o.baseline, "--baseline", built), matrix);
  const auto candidates = expand_variant_spec(parse_variant_spec(o.candidate, "--candidate", built), matrix);
  if (baselines.size() != candidates.size())
    throw UsageError(fmt::format("--baseline stands for {} variants and --candidate for {}: name the "
                                 "backend and policy on both sides or on neither", baselines.size(),
                                 candidates.size()));
  if (measure.context && o.gate)
    throw UsageError("option --context: not with --gate: a gate judges the figures the matrix gives; gate in a compare "
                     "of its own and read --context's marks beside it");
  Plan plan = shard_if_asked(measure.context
                                 ? make_compare_context_plan(matrix, baselines, candidates, matrix.protocol.seed)
                                 : make_compare_plan(matrix, baselines, candidates, matrix.protocol.seed),
                             matrix, measure);
  check_resumed_command_trusted(measure, plan.variants);  // before the start-up check runs any of it
  ProcessLauncher launcher;
  preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  const bool resume = !measure.resume.empty();
  const auto dir = prepare_output_dir(o.out, "compare-" + matrix.name, resume);

  const auto start = std::chrono::steady_clock::now();
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line, resume);
  write_formats(dir, results, measure.formats);
  std::optional<RunResults> instrumented;  // --explain: the work behind each time
  if (measure.explain && !results.interrupted_by)
    instrumented = run_explain_pass(results.plan, matrix, dir, command_line);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  VerdictSettings settings;
  settings.min_effect = o.min_effect_percent / 100;
  settings.detect = o.detect_percent / 100;
  settings.confidence = o.confidence;
  // --context: the verdicts are the in-matrix sides'; each side's fresh twin says which of
  // its figures owe to the cells before them.
  std::vector<CellContext> context;
  Comparison comparison = compare_results(measure.context ? in_matrix_view(results) : results, settings);
  if (measure.context) {
    context = context_of(results, settings);
    mark_context(comparison, context);
    write_file_atomically(dir / "results.csv", results_to_csv(results, &context));
  }
  if (instrumented) explain_comparison(comparison, *instrumented);
  const std::string context_text = measure.context ? context_section(results, context, settings, true) : "";
  const std::string markdown = comparison_markdown(comparison, context_text);
  write_file_atomically(dir / "compare.md", markdown);
  write_file_atomically(dir / "compare.csv", comparison_csv(comparison));
  write_file_atomically(dir / "compare.json", comparison_json(comparison).dump(2) + "\n");
  throw_if_interrupted(results, dir, "compare");  // the files above hold what is complete
  if (instrumented) throw_if_interrupted(*instrumented, dir / kExplainDirectory, "compare");

  const RunTotals t = totals_of(results);
  fmt::print("{}{}\n", terminal_part(markdown), context_text);
  fmt::print("{} cells a side{}, {} failed; {} processes a side; wall time {}\n", comparison.rows.size(),
             measure.context ? " (each also in fresh processes)" : "", t.failed,
             results.protocol.processes, format_duration(wall));
  fmt::print("results: {}/compare.md, compare.csv, compare.json, results.json, results.csv\n", dir.string());
  if (!measure.no_report && !o.gate) write_report_or_warn(dir);  // with --gate, after gate.json
  if (o.gate)
    return report_gate(gate_compare(results, matrix, dir, o.gate_rules, settings, !o.no_confirm, command_line), dir,
                       !measure.no_report);
  return t.failed ? kExitMeasurementFailed : kExitOk;
}

}  // namespace abench
