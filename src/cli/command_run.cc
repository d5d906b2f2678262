// abench run: measure a matrix and write results.json, results.csv and a table
// (src/flow/run_flow.h).
#include "src/cli/commands.h"
#include "src/cli/options.h"

namespace abench {

CLI::App* register_run_command(CLI::App& app, RunRequest& o) {
  CLI::App* cmd = app.add_subcommand("run", "Measure a matrix; write results.json, results.csv and a table");
  cmd->add_option("--variant", o.variants,
                  "Measure this variant instead of the matrix's backends x policies; repeatable. As compare's "
                  "--baseline: backend=,policy=,entry=,plugin=,preload=,exe=,env=K=V,label=")
      ->allow_extra_args(false);
  add_measure_options(*cmd, o.measure);
  add_out_options(*cmd, o.out, "Output directory (default: results/<time>-<matrix>)");
  cmd->add_option("--save-baseline", o.save_baseline,
                  "Also store the results as results/baselines/NAME/ for abench gate");
  add_history_options(*cmd, o.history);
  add_resume_option(*cmd);
  return cmd;
}

int run_command(const RunRequest& request, const std::vector<std::string>& command_line) {
  return exit_code_of_failed(run_matrix(request, command_line).failed_cells);
}

}  // namespace abench
