// abench report DIR: draws what run, compare or gate wrote in DIR (src/report/).
#include <fmt/format.h>

#include "src/cli/commands.h"
#include "src/report/report_writer.h"

namespace abench {

CLI::App* register_report_command(CLI::App& app, ReportOptions& options) {
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Draw a results directory (run, compare or gate) as DIR/report.html, with each figure as SVG, PNG "
      "and gnuplot script in DIR/report/");
  cmd->add_option("dir", options.dir, "The directory that run, compare or gate wrote")->required();
  return cmd;
}

int report_command(const ReportOptions& options) {
  const auto html = write_report(options.dir);
  fmt::print("{}\n", html.string());
  return 0;
}

}  // namespace abench
