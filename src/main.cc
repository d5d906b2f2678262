// abench: a benchmark harness for memory allocators and the buffer libraries on them.
// Parse the command line, run one subcommand, turn errors into a message and exit code.
#include <cstdio>

#include "src/commands.h"
#include "src/errors.h"

int main(int argc, char** argv) {
  CLI::App app{"abench: measure allocators and aligned buffers, one worker process per allocator"};
  app.require_subcommand(1);
  abench::RunOptions run_options;
  CLI::App* run = abench::register_run_command(app, run_options);
  abench::CompareOptions compare_options;
  CLI::App* compare = abench::register_compare_command(app, compare_options);
  abench::GateCommandOptions gate_options;
  CLI::App* gate = abench::register_gate_command(app, gate_options);
  abench::CalibrateOptions calibrate_options;
  CLI::App* calibrate = abench::register_calibrate_command(app, calibrate_options);
  CLI::App* list = abench::register_list_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : abench::kExitUsage;
  }
  try {
    if (run->parsed()) return abench::run_command(run_options, std::vector<std::string>(argv, argv + argc));
    if (compare->parsed())
      return abench::compare_command(compare_options, std::vector<std::string>(argv, argv + argc));
    if (gate->parsed()) return abench::gate_command(gate_options, std::vector<std::string>(argv, argv + argc));
    if (calibrate->parsed())
      return abench::calibrate_command(calibrate_options, std::vector<std::string>(argv, argv + argc));
    if (list->parsed()) return abench::list_command();
  } catch (const abench::UsageError& e) {
    std::fprintf(stderr, "abench: error: %s\n", e.what());
    return abench::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "abench: internal error (a bug, please report it): %s\n", e.what());
    return 70;
  }
  return abench::kExitUsage;
}
