// abench bisect: the commit of a library's history where a change came in, each step a paired
// compare (docs/bisect.md; src/flow/bisect_flow.h).
#include "src/cli/commands.h"
#include "src/cli/options.h"

namespace abench {

CLI::App* register_bisect_command(CLI::App& app, BisectRequest& o) {
  CLI::App* cmd = app.add_subcommand(
      "bisect", "Find the commit where a change came in: each step a paired compare against both ends");
  cmd->add_option("--repo", o.repo, "The library's git repository (its checkout is never touched)")
      ->required()
      ->check(kNotEmpty);
  cmd->add_option("--good", o.good, "A commit without the change");
  cmd->add_option("--bad", o.bad, "A later commit with it");
  cmd->add_option("--from-history", o.from_history,
                  "A history store: --good, --bad and the cell from one of its change points (with --change)")
      ->check(kNotEmpty);
  cmd->add_option("--change", o.change, "With --from-history: the change's row in changes.csv (history changes)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--build", o.build,
                  "Shell command building a commit: {src} its worktree, {out} the directory to build into")
      ->required()
      ->check(kNotEmpty);
  cmd->add_option("--spec", o.spec,
                  "The variant each build is measured as, with {out}: preload={out}/libx.so, "
                  "exe={out}/abench-worker-mimalloc, plugin={out}/libbuf.so")
      ->required()
      ->check(kNotEmpty);
  add_measure_options(*cmd, o.measure);
  cmd->add_option("--confidence", o.confidence, "Confidence of every step's intervals")
      ->check(CLI::Range(0.5, 0.999))
      ->capture_default_str();
  cmd->add_option("--max-steps", o.max_steps,
                  "Commits tested at most (default: twice what a clean search of the range needs, plus 2)")
      ->check(CLI::Range(1, 100000));
  cmd->add_option("--build-cache", o.build_cache,
                  "Where builds are kept by commit and command (default: $XDG_CACHE_HOME/abench/builds)")
      ->check(kNotEmpty);
  add_out_options(*cmd, o.out, "Output directory (default: results/<time>-bisect)");
  cmd->add_option("--resume", o.resume,
                  "Go on with the interrupted bisect in DIR: the same command again, its finished steps kept")
      ->check(kNotEmpty);
  return cmd;
}

int bisect_command(const BisectRequest& request, const std::vector<std::string>& command_line) {
  return run_bisect(request, command_line).exit_code();
}

}  // namespace abench
