// abench compare: two variants side by side, processes alternating, with a verdict per
// cell (docs/compare.md; src/flow/compare_flow.h).
#include "src/cli/commands.h"
#include "src/cli/options.h"
#include "src/util/errors.h"

namespace abench {

CLI::App* register_compare_command(CLI::App& app, CompareRequest& o) {
  CLI::App* cmd = app.add_subcommand("compare", "Compare a baseline and a candidate variant cell by cell");
  cmd->add_option("--baseline", o.baseline, "Variant: backend=,policy=,plugin=,preload=,exe=,env=K=V,label=")
      ->required();
  cmd->add_option("--candidate", o.candidate, "Variant, as --baseline")->required();
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--min-effect", o.min_effect_percent, "Smallest change (%) ever called significant")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--detect", o.detect_percent,
                  "PCT: the change you want to detect; a cell whose whole interval lies within ±PCT is 'same', one "
                  "neither called nor that 'unclear' (docs/statistics.md)")
      ->check(CLI::Range(0.1, 100.0))
      ->capture_default_str();
  cmd->add_option("--confidence", o.confidence, "Confidence of the interval")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  add_out_options(*cmd, o.out, "Output directory (default: results/<time>-compare-<matrix>)");
  cmd->add_flag("--gate", o.gate, "Also gate the candidate against the baseline (exit 1 on a regression)");
  cmd->add_flag("--no-confirm", o.no_confirm,
                "With --gate: do not measure the variants of regressed cells a second time to confirm them");
  add_gate_rule_options(*cmd, o.gate_rules);
  add_history_options(*cmd, o.history);
  add_resume_option(*cmd);
  return cmd;
}

int compare_command(const CompareRequest& request, const std::vector<std::string>& command_line) {
  const CompareOutcome outcome = run_compare(request, command_line);
  return outcome.gate ? outcome.gate->exit_code() : exit_code_of_failed(outcome.failed_cells);
}

}  // namespace abench
