// abench merge: joins the shards of one sharded run, compare, gate or calibrate (docs/ci.md;
// src/flow/merge_flow.h).
#include "src/cli/commands.h"
#include "src/cli/options.h"

namespace abench {

CLI::App* register_merge_command(CLI::App& app, MergeRequest& o) {
  CLI::App* cmd = app.add_subcommand(
      "merge", "Join the output directories of the shards of one run, compare, gate or calibrate (--shard K/N)");
  cmd->add_option("dirs", o.dirs, "Every shard's output directory, each shard once")->required();
  add_out_options(*cmd, o.out, "Output directory (default: results/<time>-merged-<matrix>)");
  cmd->add_flag("--across-machines", o.across_machines,
                "Merge shards measured on different machines (by default refused): each cell records its machine");
  cmd->add_flag("--no-report", o.no_report, "Do not draw report.html and report/");
  cmd->add_option("--save-noise", o.save_noise,
                  "calibrate's shards: store the merged floors as results/baselines/NAME/noise.json (never a name "
                  "from a shard's file)")
      ->check(kNotEmpty);
  // The verdicts are judged again here, by what this command line says (docs/security.md).
  cmd->add_option("--confidence", o.confidence,
                  "compare's and gate's shards: the confidence they were judged at (checked against theirs)")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  cmd->add_option("--min-effect", o.min_effect_percent,
                  "compare's shards: the smallest change (%) they called significant (checked against theirs)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--detect", o.detect_percent,
                  "compare's shards: the margin of 'same' they judged at (checked against theirs)")
      ->check(CLI::Range(0.1, 100.0))
      ->capture_default_str();
  add_gate_rule_options(*cmd, o.gate);
  cmd->add_option("--baseline", o.baseline,
                  "gate's shards: the baseline they were gated against (its stored figures, its noise floors)")
      ->check(kNotEmpty);
  return cmd;
}

int merge_command(const MergeRequest& request, const std::vector<std::string>& command_line) {
  const MergeOutcome outcome = run_merge(request, command_line);
  return outcome.gate ? outcome.gate->exit_code() : exit_code_of_failed(outcome.failed_cells);
}

}  // namespace abench
