// abench gate: pass or fail a candidate against a baseline (docs/ci.md).
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "src/machine/conditions.h"
#include "src/report/report_writer.h"
#include "src/util/atomic_file.h"
#include "src/verdict/compare.h"
#include "src/util/errors.h"
#include "src/exports/format_registry.h"
#include "src/verdict/gate.h"
#include "src/verdict/gate_confirmation.h"
#include "src/verdict/gate_file.h"
#include "src/cli/gate_report.h"
#include "src/cli/measure.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/cli/stored_baseline.h"
#include "src/run/worker_registry.h"
#include "src/run/execute.h"
#include "src/verdict/pairing.h"

namespace abench {
void add_gate_rule_options(CLI::App& cmd, GateOptions& o) {
  cmd.add_option("--gate-file", o.gate_file, "JSON thresholds: global, per workload, per cell pattern");
  cmd.add_option("--threshold", o.threshold_percent, "Global threshold in percent (default 5; instructions 0.5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd.add_option("--noise", o.noise, "Noise floors from abench calibrate: a stored NAME or a noise.json path");
  cmd.add_flag("--allow-unclear", o.allow_unclear,
               "Pass a cell that was not called although its interval reaches past the threshold on the slower side "
               "(by default such a cell is UNCLEAR and the gate exits 3)");
}

GateRules gate_rules(const GateOptions& o) {
  GateRules rules = o.gate_file.empty() ? GateRules{} : load_gate_rules(o.gate_file);
  if (o.threshold_percent) rules.threshold = rules.instruction_threshold = *o.threshold_percent / 100;
  rules.allow_unclear = o.allow_unclear;
  return rules;
}

std::map<std::string, double> gate_noise(const GateOptions& o, const std::string& baseline_path) {
  if (!o.noise.empty()) return load_noise_file(resolve_stored(o.noise, "noise.json"));
  // A stored baseline carries its calibrated noise floors when calibrate saved them there.
  const auto beside = std::filesystem::path(baseline_path).parent_path() / "noise.json";
  if (!baseline_path.empty() && std::filesystem::exists(beside)) return load_noise_file(beside.string());
  return {};
}

namespace {

// Different machines measure different numbers: say so, as the verdict cannot tell.
std::string conditions_text(const RunResults& results, const char* key) {
  const auto field = results.conditions.find(key);
  return field != results.conditions.end() && field->is_string() ? field->get<std::string>() : "";
}

void add_environment_warnings(GateVerdict& v, const RunResults& before, const RunResults& after) {
  const std::string b = conditions_text(before, "machine_fingerprint"), a = conditions_text(after, "machine_fingerprint");
  if (!b.empty() && b != a)
    v.warnings.push_back(fmt::format("baseline ({}) and candidate ({}) were measured on different machines "
                                     "(fingerprints differ): a change may be the machine's, not the code's", b, a));
  if (const auto w = after.conditions.find("warnings"); w != after.conditions.end() && w->is_array())
    for (const auto& warning : *w)
      if (warning.is_string()) v.warnings.push_back(warning.get<std::string>());
}

// Figures of two architectures measure two different machines' code paths (and instruction
// counts differ by construction): a gate across them is refused, not warned about.
void refuse_other_architecture(const RunResults& baseline, const std::string& baseline_path,
                               const std::string& candidate_architecture, const std::string& candidate_source) {
  const std::string a = conditions_text(baseline, "architecture");
  if (a.empty() || candidate_architecture.empty() || a == candidate_architecture) return;
  throw UsageError(fmt::format("{}: field 'conditions.architecture' is '{}' but {} is {}: a gate compares one "
                               "architecture with itself; gate against a baseline measured on {}",
                               baseline_path, a, candidate_source, candidate_architecture, candidate_architecture));
}

}  // namespace

int report_gate(GateVerdict verdict, const std::filesystem::path& dir, bool draw_report) {
  const std::string markdown = gate_markdown(verdict);
  write_file_atomically(dir / "gate.md", markdown);
  write_file_atomically(dir / "gate.json", gate_json(verdict).dump(2) + "\n");
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    std::ofstream out(summary, std::ios::app);
    out << markdown << "\n";
  }
  fmt::print("{}\n", markdown);
  fmt::print("gate: {}/gate.md, {}/gate.json\n", dir.string(), dir.string());
  if (draw_report) write_report_or_warn(dir);
  return verdict.exit_code();
}

namespace {

// The gate's confirmation (src/verdict/gate_confirmation.h): the variants of the regressed
// cells measured a second time into dir/confirm, their cells judged again on both runs.
void confirm_regressions(GateVerdict& verdict, RunResults& measured, const Matrix& matrix,
                         const std::filesystem::path& dir, const GateRules& rules,
                         const std::map<std::string, double>& noise, const VerdictSettings& settings,
                         const std::vector<std::string>& command_line) {
  const std::string path = (dir / "results.json").string();
  const Confirmation confirmation = regressions_to_confirm(verdict, measured, path);
  Plan plan = measured.plan;
  std::erase_if(plan.jobs, [&](const Job& job) {
    return job.mode != WorkerMode::time || !confirmation.variants.contains(job.variant);
  });
  const auto confirm_dir = dir / "confirm";
  make_output_subdirectory(confirm_dir);
  const RunResults second = execute_plan(std::move(plan), matrix, confirm_dir, command_line);
  throw_if_interrupted(second, confirm_dir, nullptr);
  judge_with_second_run(verdict, measured, second, confirmation, rules, noise, settings, path, confirm_dir.string());
}

// The gate over the two sides of one interleaved run (a compare, or a side-by-side gate),
// paired by round, its regressions confirmed by a second run unless `confirm` is false.
GateVerdict gate_interleaved(const RunResults& results, const Matrix& matrix, const std::filesystem::path& dir,
                             const GateRules& rules, const std::map<std::string, double>& noise,
                             const VerdictSettings& settings, bool confirm,
                             const std::vector<std::string>& command_line) {
  GateVerdict verdict = evaluate_gate(gate_pairs(results, (dir / "results.json").string()), rules, noise, settings);
  add_environment_warnings(verdict, results, results);
  if (verdict.regressions > 0 && confirm) {
    RunResults pooled = results;
    confirm_regressions(verdict, pooled, matrix, dir, rules, noise, settings, command_line);
  }
  return verdict;
}

}  // namespace

GateVerdict gate_compare(const RunResults& results, const Matrix& matrix, const std::filesystem::path& dir,
                         const GateOptions& o, const VerdictSettings& settings, bool confirm,
                         const std::vector<std::string>& command_line) {
  return gate_interleaved(results, matrix, dir, gate_rules(o), gate_noise(o, ""), settings, confirm, command_line);
}

CLI::App* register_gate_command(CLI::App& app, GateCommandOptions& o) {
  CLI::App* cmd = app.add_subcommand("gate", "Pass or fail a candidate against a baseline (exit 0 pass, 1 regression, "
                                              "2 usage, 3 measurement failed)");
  cmd->add_option("--baseline", o.baseline, "results.json (or its directory) or a baseline stored by run --save-baseline")
      ->required();
  cmd->add_option("--candidate", o.candidate, "results.json to judge; without it, the candidate is measured now");
  cmd->add_flag("--stored-figures", o.stored_figures,
                "Judge a fresh candidate against the stored figures, even where the baseline's workers are "
                "stored (by default they are measured again beside the candidate)");
  cmd->add_option("--confidence", o.confidence, "Confidence of each cell's interval; gate.json records it")
      ->check(CLI::Range(0.5, 0.999))->capture_default_str();
  cmd->add_flag("--no-confirm", o.no_confirm,
                "Side by side: do not measure the variants of regressed cells a second time to confirm them");
  cmd->add_flag("--run-stored-workers", o.run_stored_workers,
                "Run the workers stored beside a --baseline results.json outside results/baselines/ (by default "
                "only baselines abench stored itself have their workers run)");
  add_gate_rule_options(*cmd, o.gate);
  o.measure.matrix.clear();  // default: the baseline's own matrix and protocol
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--out", o.out, "Directory for gate.md and gate.json (default: results/<time>-gate)")->check(kNotEmpty);
  return cmd;
}

namespace {

// The median over cells of how far the re-measured baseline is from its stored figures:
// mostly the machine's drift since it was stored, which measuring both sides now cancels.
// A cell's figure where every process measured it.
std::optional<double> figure_of(const CellRecord& cell) {
  return cell.summary.status == CellStatus::ok ? cell.summary.ns_per_op : std::nullopt;
}

std::string drift_note(const RunResults& stored, const RunResults& measured) {
  std::map<std::string, double> stored_figures;
  for (const CellRecord& cell : stored.cells)
    if (const auto figure = figure_of(cell)) stored_figures[cell_key(stored, cell)] = *figure;
  std::vector<double> ratios;
  for (const CellRecord& cell : measured.cells)
    if (side_of(measured, cell) == "baseline")
      if (const auto figure = figure_of(cell))
        if (auto s = stored_figures.find(cell_key(measured, cell)); s != stored_figures.end() && s->second > 0)
          ratios.push_back(*figure / s->second);
  if (ratios.empty()) return "";
  std::sort(ratios.begin(), ratios.end());
  const auto at = [&](double q) { return (ratios[static_cast<std::size_t>(q * static_cast<double>(ratios.size() - 1))] - 1) * 100; };
  return fmt::format("The baseline's workers were measured again beside the candidate. Against its stored figures "
                     "the re-measured baseline moved by {:+.1f}% (median over {} cells; 10th to 90th percentile "
                     "{:+.1f}% to {:+.1f}%): what a gate on the stored figures would have taken for change.",
                     at(0.5), ratios.size(), at(0.1), at(0.9));
}

}  // namespace

int gate_command(const GateCommandOptions& o, const std::vector<std::string>& command_line) {
  if (!o.candidate.empty() && o.measure.shard)
    throw UsageError("option --shard: with --candidate the gate measures nothing, so there is nothing to shard; "
                     "gate the merged results (abench merge) instead");
  const std::string baseline_path = resolve_stored(o.baseline, "results.json");
  const RunResults before = load_results(baseline_path);
  const VerdictSettings settings{VerdictSettings{}.min_effect, o.confidence};
  const GateRules rules = gate_rules(o.gate);
  const auto noise = gate_noise(o.gate, baseline_path);
  if (!o.candidate.empty()) {
    if (!o.measure.formats.empty())
      throw UsageError("option --format: with --candidate the gate measures nothing, so there is nothing new to export; "
                       "export with the run that wrote the candidate's results");
    const std::string candidate_path = resolve_stored(o.candidate, "results.json");
    const RunResults after = load_results(candidate_path);
    refuse_other_architecture(before, baseline_path, conditions_text(after, "architecture"),
                              "the candidate (" + candidate_path + ")");
    GateVerdict verdict = evaluate_gate(pair_results(before, baseline_path, after, candidate_path), rules, noise, settings);
    add_environment_warnings(verdict, before, after);
    return report_gate(std::move(verdict), prepare_output_dir(o.out, "gate"), !o.measure.no_report);
  }

  refuse_other_architecture(before, baseline_path, collect_conditions().value("architecture", ""), "this machine");
  MeasureOptions measure = o.measure;
  // Instruction counts repeat exactly, so stored ones are as good as fresh; timings drift.
  std::string untrusted_workers;
  const auto workers = stored_workers_dir(baseline_path, o.run_stored_workers, &untrusted_workers);
  const bool timed = before.protocol.measure == Measure::time && measure.measure.value_or("time") == "time";
  // A paired gate aims at the threshold's width: an interval that narrow either passes or is
  // called, never UNCLEAR. With a budget, within its time; without, up to --max-rounds (24).
  // Rounds are added by width, never by where the interval lies (src/run/adaptive_rounds.h).
  const bool paired = !o.stored_figures && !workers.empty() && timed && measure.interleave.value_or("batch") != "process";
  if (!measure.until_interval_percent && (paired || measure.budget_s)) measure.until_interval_percent = rules.threshold * 100;
  Matrix matrix;
  if (measure.matrix.empty()) {
    matrix = matrix_of_results(before.matrix, measure, built_backends());
  } else {
    // same cell orders (see matrix_of_results)
    if (!measure.seed && before.protocol.seed) measure.seed = before.protocol.seed;
    matrix = load_measure_matrix(measure, built_backends());
  }
  const bool side_by_side = !o.stored_figures && !workers.empty() && matrix.protocol.measure != Measure::instructions;
  if (side_by_side) {
    use_side_by_side_protocol(matrix, measure, settings.confidence);
    Plan plan = shard_if_asked(side_by_side_plan(workers, matrix), matrix, measure);
    const auto dir = prepare_output_dir(o.out, "gate-" + matrix.name);
    const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
    throw_if_interrupted(results, dir, nullptr);
    write_formats(dir, results, measure.formats);
    GateVerdict verdict = gate_interleaved(results, matrix, dir, rules, noise, settings, !o.no_confirm, command_line);
    if (std::string note = drift_note(before, results); !note.empty()) verdict.notes.insert(verdict.notes.begin(), note);
    return report_gate(std::move(verdict), dir, !o.measure.no_report);
  }
  Plan plan = shard_if_asked(make_plan(matrix, matrix.protocol.seed), matrix, measure);
  const auto dir = prepare_output_dir(o.out, "gate-" + matrix.name);
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
  throw_if_interrupted(results, dir, nullptr);
  write_formats(dir, results, measure.formats);
  // A shard is judged against the baseline's cells of that shard; merge joins the verdicts.
  RunResults judged_before = before;
  if (results.plan.shard) {
    std::set<std::string> measured;
    for (const CellRecord& cell : results.cells) measured.insert(cell_key(results, cell));
    std::erase_if(judged_before.cells, [&](const CellRecord& cell) { return !measured.contains(cell_key(before, cell)); });
  }
  GateVerdict verdict = evaluate_gate(
      pair_results(judged_before, baseline_path, results, (dir / "results.json").string()), rules, noise, settings);
  add_environment_warnings(verdict, before, results);
  if (!untrusted_workers.empty() && !o.stored_figures)
    verdict.notes.push_back(fmt::format("The workers in {} were not run: that baseline is not one abench stored under "
                                        "results/baselines/ (a results file from elsewhere must not run its "
                                        "neighbour's code); --run-stored-workers runs them.", untrusted_workers));
  verdict.notes.push_back(workers.empty() || matrix.protocol.measure == Measure::instructions
                              ? "The candidate was gated against the baseline's stored figures."
                              : "The candidate was gated against the baseline's stored figures (--stored-figures): "
                                "on a shared machine they drift between runs; see docs/ci.md.");
  return report_gate(std::move(verdict), dir, !o.measure.no_report);
}

}  // namespace abench
