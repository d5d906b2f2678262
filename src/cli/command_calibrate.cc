// abench calibrate: each cell's noise floor, how far an unchanged build moves in the gate's
// comparison (docs/ci.md; src/flow/calibrate_flow.h).
#include "src/cli/commands.h"
#include "src/cli/options.h"

namespace abench {

CLI::App* register_calibrate_command(CLI::App& app, CalibrateRequest& o) {
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "Measure each cell's noise floor: how far an unchanged build moves in the gate's comparison (A/A)");
  cmd->add_option("--variant", o.variant, "The variant, as for compare (default: the matrix's backends and policies)");
  cmd->add_option("--save-noise", o.save_noise, "Store the floors as results/baselines/NAME/noise.json")->required();
  cmd->add_option("--runs", o.runs, "Unchanged runs to measure (at least 2)")
      ->check(CLI::Range(2, 50))
      ->capture_default_str();
  o.measure.matrix.clear();  // default: the stored baseline's matrix and protocol
  add_measure_options(*cmd, o.measure);
  add_out_options(*cmd, o.out, "Output directory (default: results/<time>-calibrate-<matrix>)");
  return cmd;
}

int calibrate_command(const CalibrateRequest& request, const std::vector<std::string>& command_line) {
  return exit_code_of_failed(run_calibrate(request, command_line).failed_cells);
}

}  // namespace abench
