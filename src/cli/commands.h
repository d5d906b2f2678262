// The subcommands: each registers its options on the CLI into its workflow's request
// (src/flow/), and turns the workflow's outcome into an exit code.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/flow/bisect_flow.h"
#include "src/flow/calibrate_flow.h"
#include "src/flow/compare_flow.h"
#include "src/flow/gate_flow.h"
#include "src/flow/history_flow.h"
#include "src/flow/merge_flow.h"
#include "src/flow/run_flow.h"

namespace abench {

CLI::App* register_run_command(CLI::App& app, RunRequest& request);
int run_command(const RunRequest& request, const std::vector<std::string>& command_line);

CLI::App* register_compare_command(CLI::App& app, CompareRequest& request);
int compare_command(const CompareRequest& request, const std::vector<std::string>& command_line);

CLI::App* register_gate_command(CLI::App& app, GateRequest& request);
int gate_command(const GateRequest& request, const std::vector<std::string>& command_line);

CLI::App* register_calibrate_command(CLI::App& app, CalibrateRequest& request);
int calibrate_command(const CalibrateRequest& request, const std::vector<std::string>& command_line);

struct ReportOptions {
  std::string dir;
};
CLI::App* register_report_command(CLI::App& app, ReportOptions& options);
int report_command(const ReportOptions& options);

CLI::App* register_merge_command(CLI::App& app, MergeRequest& request);
int merge_command(const MergeRequest& request, const std::vector<std::string>& command_line);

struct HistoryCommand {
  enum class Action { add, rebuild, changes, export_series };
  Action action = Action::add;
  HistoryRequest request;  // add, rebuild
  ChangesRequest changes;  // changes, export
};
CLI::App* register_history_command(CLI::App& app, HistoryCommand& command);
int history_command(const HistoryCommand& command);

CLI::App* register_bisect_command(CLI::App& app, BisectRequest& request);
int bisect_command(const BisectRequest& request, const std::vector<std::string>& command_line);

CLI::App* register_list_command(CLI::App& app);
int list_command();

// A workflow's failed cells as the exit code: 3 where any failed, else 0.
int exit_code_of_failed(std::size_t failed_cells);

}  // namespace abench
