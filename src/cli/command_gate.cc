// abench gate: pass or fail a candidate against a baseline (docs/ci.md; src/flow/gate_flow.h).
#include "src/cli/commands.h"
#include "src/cli/options.h"

namespace abench {

CLI::App* register_gate_command(CLI::App& app, GateRequest& o) {
  CLI::App* cmd = app.add_subcommand("gate",
                                     "Pass or fail a candidate against a baseline (exit 0 pass, 1 regression, "
                                     "2 usage, 3 measurement failed)");
  cmd->add_option("--baseline", o.baseline,
                  "results.json (or its directory) or a baseline stored by run --save-baseline")
      ->required();
  cmd->add_option("--candidate", o.candidate, "results.json to judge; without it, the candidate is measured now");
  cmd->add_flag("--stored-figures", o.stored_figures,
                "Judge a fresh candidate against the stored figures, even where the baseline's workers are "
                "stored (by default they are measured again beside the candidate)");
  cmd->add_option("--confidence", o.confidence, "Confidence of each cell's interval; gate.json records it")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  cmd->add_flag("--no-confirm", o.no_confirm,
                "Side by side: do not measure the variants of regressed cells a second time to confirm them");
  cmd->add_flag("--run-stored-workers", o.run_stored_workers,
                "Run the workers stored beside a --baseline results.json outside results/baselines/ (by default "
                "only baselines abench stored itself have their workers run)");
  add_history_options(*cmd, o.history,
                      "; each cell with 5 runs like this one since its last change point there is judged "
                      "against them, not the baseline");
  add_gate_rule_options(*cmd, o.rules);
  o.measure.matrix.clear();  // default: the baseline's own matrix and protocol
  add_measure_options(*cmd, o.measure);
  add_out_options(*cmd, o.out, "Directory for gate.md and gate.json (default: results/<time>-gate)");
  return cmd;
}

int gate_command(const GateRequest& request, const std::vector<std::string>& command_line) {
  return run_gate(request, command_line).exit_code();
}

}  // namespace abench
