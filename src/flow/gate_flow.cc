#include "src/flow/gate_flow.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "src/exports/format_registry.h"
#include "src/flow/measure_setup.h"
#include "src/flow/history_gate.h"
#include "src/flow/stored_baseline.h"
#include "src/flow/verdict_files.h"
#include "src/flow/output_directory.h"
#include "src/machine/conditions.h"
#include "src/results/results_reader.h"
#include "src/results/timed_loops.h"
#include "src/results/results_writers.h"
#include "src/run/execute.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/verdict/gate_confirmation.h"
#include "src/verdict/pairing.h"

namespace abench {
namespace {

// What every road judges by, and the baseline it judges against.
struct GateJudging {
  std::string baseline_path;
  RunResults baseline;
  GateRules rules;
  std::map<std::string, double> noise;
  VerdictSettings settings;
};

struct Gated {
  GateVerdict verdict;
  std::filesystem::path dir;
  std::filesystem::path measured;  // the directory of the gated run's results.json
  // What measured it, where the gate measured it (results.json keeps no jobs to run again).
  std::optional<Matrix> matrix;
  std::optional<Plan> plan;
};

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

// Two results files, paired cell by cell: nothing is measured.
Gated gate_stored_candidate(const GateRequest& r, const GateJudging& j) {
  if (!r.measure.formats.empty())
    throw UsageError(
        "option --format: with --candidate the gate measures nothing, so there is nothing new to export; "
        "export with the run that wrote the candidate's results");
  const std::string candidate_path = resolve_stored(r.candidate, "results.json");
  const RunResults after = load_results(candidate_path);
  refuse_other_architecture(j.baseline, j.baseline_path, after.conditions.architecture,
                            "the candidate (" + candidate_path + ")");
  refuse_other_timed_loops({timed_loops_of(j.baseline), "the baseline (" + j.baseline_path + ")"},
                           {timed_loops_of(after), "the candidate (" + candidate_path + ")"}, "abench gate",
                           "measure both with one abench build; nothing was judged");
  GateVerdict verdict =
      evaluate_gate(pair_results(j.baseline, j.baseline_path, after, candidate_path), j.rules, j.noise, j.settings);
  add_environment_warnings(verdict, j.baseline, after);
  return {std::move(verdict), prepare_output_dir(r.out, "gate"), std::filesystem::path(candidate_path).parent_path(),
          std::nullopt, std::nullopt};
}

// The candidate's matrix: the baseline's own, or --matrix with the baseline's seed (the same
// cell orders).
Matrix candidate_matrix(MeasureOptions measure, const RunResults& baseline) {
  if (measure.matrix.empty()) return matrix_of_results(baseline.matrix, measure, built_backends());
  if (!measure.protocol.has("seed") && baseline.protocol.seed) measure.protocol.give("seed", baseline.protocol.seed);
  return load_measure_matrix(measure, built_backends());
}

// The stored workers measured again beside the built candidate, in one interleaved run.
Gated gate_side_by_side(const GateRequest& r, const GateJudging& j, Matrix matrix, const MeasureOptions& measure,
                        const std::filesystem::path& workers, const std::vector<std::string>& command_line) {
  use_side_by_side_protocol(matrix, measure, j.settings.confidence);
  Plan plan = shard_if_asked(side_by_side_plan(workers, matrix), matrix, measure);
  const auto dir = prepare_output_dir(r.out, "gate-" + matrix.name);
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
  throw_if_interrupted(results, dir, nullptr);
  write_formats(dir, results, measure.formats);
  GateVerdict verdict =
      gate_interleaved(results, matrix, dir, j.rules, j.noise, j.settings, !r.no_confirm, command_line);
  if (std::string note = drift_note(j.baseline, results); !note.empty())
    verdict.notes.insert(verdict.notes.begin(), note);
  return {std::move(verdict), dir, dir, std::move(matrix), results.plan};
}

// The baseline's cells that `results` measured: a shard is judged against its own cells, and
// merge joins the verdicts.
RunResults cells_measured_by(const RunResults& baseline, const RunResults& results) {
  RunResults judged = baseline;
  if (!results.plan.shard) return judged;
  std::set<std::string> measured;
  for (const CellRecord& cell : results.cells) measured.insert(cell_key(results, cell));
  std::erase_if(judged.cells, [&](const CellRecord& cell) { return !measured.contains(cell_key(baseline, cell)); });
  return judged;
}

// The candidate measured now, judged against the figures stored with the baseline.
Gated gate_on_stored_figures(const GateRequest& r, const GateJudging& j, const Matrix& matrix,
                             const MeasureOptions& measure, const std::string& untrusted_workers, bool have_workers,
                             const std::vector<std::string>& command_line) {
  Plan plan = shard_if_asked(make_plan(matrix, matrix.protocol.seed), matrix, measure);
  ProcessLauncher launcher;
  refuse_other_timed_loops({timed_loops_of(j.baseline), "the baseline (" + j.baseline_path + ")"},
                           {timed_loops_of(plan.variants, timed_loops(plan.variants, launcher)), "this build"},
                           "abench gate",
                           "store the baseline again with this build (abench run --save-baseline at the "
                           "baseline's revision, docs/ci.md); nothing was measured");
  const auto dir = prepare_output_dir(r.out, "gate-" + matrix.name);
  const RunResults results = execute_plan(std::move(plan), matrix, dir, command_line);
  throw_if_interrupted(results, dir, nullptr);
  write_formats(dir, results, measure.formats);
  GateVerdict verdict = evaluate_gate(
      pair_results(cells_measured_by(j.baseline, results), j.baseline_path, results, (dir / "results.json").string()),
      j.rules, j.noise, j.settings);
  add_environment_warnings(verdict, j.baseline, results);
  if (!untrusted_workers.empty() && !r.stored_figures)
    verdict.notes.push_back(
        fmt::format("The workers in {} were not run: that baseline is not one abench stored under "
                    "results/baselines/ (a results file from elsewhere must not run its "
                    "neighbour's code); --run-stored-workers runs them.",
                    untrusted_workers));
  verdict.notes.push_back(!have_workers || row_of(matrix.protocol.measure).exact
                              ? "The candidate was gated against the baseline's stored figures."
                              : "The candidate was gated against the baseline's stored figures (--stored-figures): "
                                "on a shared machine they drift between runs; see docs/ci.md.");
  return {std::move(verdict), dir, dir, matrix, results.plan};
}

// A candidate measured now: beside the stored workers where there are some and the figures
// are timings (instruction counts repeat exactly, so stored ones are as good as fresh).
Gated gate_measured(const GateRequest& r, const GateJudging& j, const std::vector<std::string>& command_line) {
  refuse_other_architecture(j.baseline, j.baseline_path, conditions_from_facts(collect_conditions()).architecture,
                            "this machine");
  MeasureOptions measure = r.measure;
  std::string untrusted_workers;
  const auto workers = stored_workers_dir(j.baseline_path, r.run_stored_workers, &untrusted_workers);
  const Measure asked = measure.protocol.has("measure") ? measure.protocol.values.measure : j.baseline.protocol.measure;
  const bool timed = row_of(j.baseline.protocol.measure).wall_clock && row_of(asked).wall_clock;
  // A paired gate aims at the threshold's width: an interval that narrow either passes or is
  // called, never UNCLEAR; with a budget, within its time. Rounds are added by width, never
  // by where the interval lies (src/run/adaptive_rounds.h).
  const bool paired =
      !r.stored_figures && !workers.empty() && timed && measure.interleave.value_or("batch") != "process";
  if (!measure.protocol.has("until_interval.width_percent") &&
      (paired || measure.protocol.has("until_interval.budget_seconds")))
    measure.protocol.give("until_interval.width_percent", std::clamp(j.rules.threshold * 100, 0.01, 100.0));
  const Matrix matrix = candidate_matrix(measure, j.baseline);
  if (!r.stored_figures && !workers.empty() && !row_of(matrix.protocol.measure).exact)
    return gate_side_by_side(r, j, matrix, measure, workers, command_line);
  return gate_on_stored_figures(r, j, matrix, measure, untrusted_workers, !workers.empty(), command_line);
}

}  // namespace

GateVerdict run_gate(const GateRequest& r, const std::vector<std::string>& command_line) {
  if (!r.candidate.empty() && r.measure.shard)
    throw UsageError(
        "option --shard: with --candidate the gate measures nothing, so there is nothing to shard; "
        "gate the merged results (abench merge) instead");
  const std::optional<RunIdentity> recording = prepare_recording(r.history);
  GateJudging j;
  j.baseline_path = resolve_stored(r.baseline, "results.json");
  j.baseline = load_results(j.baseline_path);
  j.settings = VerdictSettings{VerdictSettings{}.min_effect, r.confidence};
  j.rules = gate_rules(r.rules);
  j.noise = gate_noise(r.rules, j.baseline_path);
  Gated gated = r.candidate.empty() ? gate_measured(r, j, command_line) : gate_stored_candidate(r, j);
  if (recording) {
    // Counts repeat exactly: a second run of them would confirm nothing.
    const bool confirm = gated.matrix && !r.no_confirm && !row_of(gated.matrix->protocol.measure).exact;
    judge_with_history(gated.verdict,
                       {r.history.store, gated.measured, recording->commit, confirm ? &*gated.matrix : nullptr,
                        confirm ? &*gated.plan : nullptr, command_line});
  }
  write_gate_files(gated.verdict, gated.dir, !r.measure.no_report);
  if (recording) record_directory(r.history, *recording, gated.measured);
  return gated.verdict;
}

GateVerdict gate_compare(const RunResults& results, const Matrix& matrix, const std::filesystem::path& dir,
                         const GateRuleOptions& o, const VerdictSettings& settings, bool confirm,
                         const std::vector<std::string>& command_line) {
  return gate_interleaved(results, matrix, dir, gate_rules(o), gate_noise(o, ""), settings, confirm, command_line);
}

}  // namespace abench
