#include "src/cli/subcommands.h"

#include <memory>

#include "src/cli/commands.h"
#include "src/util/errors.h"

namespace abench {
namespace {

// A row: the options live as long as the row's run function.
template <class Options, class Register, class Run>
Subcommand row(CLI::App& app, Register register_options, Run run) {
  auto options = std::make_shared<Options>();
  CLI::App* command = register_options(app, *options);
  return {command, [options, run](const CommandContext& context) { return run(*options, context); }};
}

}  // namespace

std::vector<Subcommand> register_subcommands(CLI::App& app) {
  std::vector<Subcommand> table;
  table.push_back(row<RunRequest>(app, register_run_command, [](RunRequest& o, const CommandContext& c) {
    o.measure.resume = c.resume.dir;
    o.measure.resume_untrusted_because = c.resume.untrusted_because;
    return run_command(o, c.command_line);
  }));
  table.push_back(row<CompareRequest>(app, register_compare_command, [](CompareRequest& o, const CommandContext& c) {
    o.measure.resume = c.resume.dir;
    o.measure.resume_untrusted_because = c.resume.untrusted_because;
    return compare_command(o, c.command_line);
  }));
  table.push_back(row<GateRequest>(app, register_gate_command, [](GateRequest& o, const CommandContext& c) {
    return gate_command(o, c.command_line);
  }));
  table.push_back(row<CalibrateRequest>(
      app, register_calibrate_command,
      [](CalibrateRequest& o, const CommandContext& c) { return calibrate_command(o, c.command_line); }));
  table.push_back(row<ReportOptions>(app, register_report_command,
                                     [](ReportOptions& o, const CommandContext&) { return report_command(o); }));
  table.push_back(row<MergeRequest>(app, register_merge_command, [](MergeRequest& o, const CommandContext& c) {
    return merge_command(o, c.command_line);
  }));
  table.push_back(row<HistoryCommand>(app, register_history_command,
                                      [](HistoryCommand& o, const CommandContext&) { return history_command(o); }));
  table.push_back(row<BisectRequest>(app, register_bisect_command, [](BisectRequest& o, const CommandContext& c) {
    return bisect_command(o, c.command_line);
  }));
  table.push_back({register_list_command(app), [](const CommandContext&) { return list_command(); }});
  return table;
}

// The exit code of a measuring command whose cells were all tried: 3 when some failed.
int exit_code_of_failed(std::size_t failed_cells) { return failed_cells > 0 ? kExitMeasurementFailed : kExitOk; }

}  // namespace abench
