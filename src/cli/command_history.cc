// abench history add|rebuild|changes: runs kept in a history store, and where each cell
// changed over the commits (src/flow/history_flow.h, docs/history.md).
#include "src/cli/commands.h"
#include "src/cli/options.h"

namespace abench {
namespace {

// The store, the output directory and the cells: what changes and export read.
void add_series_options(CLI::App& cmd, ChangesRequest& o, const char* out) {
  cmd.add_option("--history", o.store, "The store: a SQLite file's path or a postgresql:// URL")
      ->required()
      ->check(kNotEmpty);
  add_out_options(cmd, o.out, out);
  cmd.add_option("--variant", o.variants, "Only these variants' cells (labels, repeatable)");
  cmd.add_option("--backend", o.backends, "Only these backends' cells");
  cmd.add_option("--workload", o.workloads, "Only these workloads' cells");
  cmd.add_option("--size", o.sizes, "Only these sizes (comma-separated)");
  cmd.add_option("--live", o.lives, "Only these live counts (comma-separated)");
}

void add_changes_options(CLI::App& cmd, ChangesRequest& o) {
  add_series_options(cmd, o, "Output directory (default: results/<time>-changes)");
  cmd.add_option("--alpha", o.alpha, "The t-test's significance for a change point")
      ->check(CLI::Range(1e-9, 0.1))
      ->capture_default_str();
  cmd.add_option("--min-step", o.min_step_percent,
                 "PCT: the smallest step reported in any cell (each cell's own detectable change, if larger, wins)")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  cmd.add_flag("--no-report", o.no_report, "Do not draw history.html and report/");
  cmd.add_option("--recent", o.recent, "N: exit 1 when a regression begins within the last N commits of its cell")
      ->check(CLI::Range(0, 1000000));
}

}  // namespace

CLI::App* register_history_command(CLI::App& app, HistoryCommand& o) {
  CLI::App* cmd = app.add_subcommand("history", "Keep runs in a history store and find where cells changed");
  cmd->require_subcommand(1);
  CLI::App* add = cmd->add_subcommand("add", "Record results directories' runs with their commit");
  CLI::App* rebuild = cmd->add_subcommand("rebuild", "Empty the store and record the directories again");
  CLI::App* changes = cmd->add_subcommand("changes", "Each cell's change points over the commits");
  CLI::App* as_csv = cmd->add_subcommand("export", "Each cell's series as the CSV Apache Otava reads");
  for (CLI::App* sub : {add, rebuild}) {
    sub->add_option("dirs", o.request.dirs, "Results directories (each holds a results.json)")->required();
    sub->add_option("--history", o.request.store, "The store: a SQLite file's path or a postgresql:// URL")
        ->required()
        ->check(kNotEmpty);
  }
  add->add_option("--commit", o.request.commit,
                  "The commit the runs measured (default: the CI's GITHUB_SHA, CI_COMMIT_SHA, ...)");
  add->add_option("--branch", o.request.branch, "Its branch (default: the CI's GITHUB_REF_NAME, ...)");
  add_changes_options(*changes, o.changes);
  add_series_options(*as_csv, o.changes, "Output directory (default: results/<time>-series)");
  as_csv->parse_complete_callback([&o] { o.action = HistoryCommand::Action::export_series; });
  rebuild->parse_complete_callback([&o] { o.action = HistoryCommand::Action::rebuild; });
  changes->parse_complete_callback([&o] { o.action = HistoryCommand::Action::changes; });
  return cmd;
}

int history_command(const HistoryCommand& command) {
  switch (command.action) {
    case HistoryCommand::Action::add: run_history_add(command.request); return kExitOk;
    case HistoryCommand::Action::rebuild: run_history_rebuild(command.request); return kExitOk;
    case HistoryCommand::Action::export_series: run_history_export(command.changes); return kExitOk;
    case HistoryCommand::Action::changes:
      return run_history_changes(command.changes).recent_regressions > 0 ? 1 : kExitOk;
  }
  return kExitOk;
}

}  // namespace abench
