// abench: a benchmark harness for memory allocators and the buffer libraries on them.
// Parse the command line, run one subcommand, turn errors into a message and exit code.
#include <cstdio>

#include <fmt/format.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <vector>

#include "src/cli/commands.h"
#include "src/util/errors.h"
#include "src/util/interrupt.h"
#include "src/util/text.h"

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
  abench::ReportOptions report_options;
  CLI::App* report = abench::register_report_command(app, report_options);
  abench::MergeOptions merge_options;
  CLI::App* merge = abench::register_merge_command(app, merge_options);
  CLI::App* list = abench::register_list_command(app);
  abench::install_interrupt_handlers();
  // Past a file size limit a write fails with EFBIG, reported as the environment's failure,
  // instead of the signal ending abench between two files.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args;
  std::string resume_dir;
  try {
    // CLI11 answers an unknown command with "A subcommand is required": say what was wrong.
    if (argc > 1 && argv[1][0] != '-') {
      std::string allowed;
      bool known = false;
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        allowed += (allowed.empty() ? "" : ", ") + sub->get_name();
        known |= sub->get_name() == argv[1];
      }
      if (!known)
        throw abench::UsageError(
            fmt::format("unknown command '{}' (allowed: {}; abench --help)", abench::printable(argv[1]), allowed));
    }
    args = abench::command_line_to_parse(argc, argv, &resume_dir);
    std::vector<char*> pointers;
    for (auto& a : args) pointers.push_back(a.data());
    app.parse(static_cast<int>(pointers.size()), pointers.data());
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : abench::kExitUsage;
  } catch (const abench::UsageError& e) {
    std::fprintf(stderr, "abench: error: %s\n", e.what());
    return abench::kExitUsage;
  }
  run_options.measure.resume = compare_options.measure.resume = resume_dir;
  try {
    if (run->parsed()) return abench::run_command(run_options, args);
    if (compare->parsed()) return abench::compare_command(compare_options, args);
    if (gate->parsed()) return abench::gate_command(gate_options, args);
    if (calibrate->parsed()) return abench::calibrate_command(calibrate_options, args);
    if (report->parsed()) return abench::report_command(report_options);
    if (merge->parsed()) return abench::merge_command(merge_options, args);
    if (list->parsed()) return abench::list_command();
  } catch (const abench::Interrupted& e) {
    std::fprintf(stderr, "abench: interrupted (%s): %s\n", sigabbrev_np(e.signal), e.what());
    return 128 + e.signal;
  } catch (const abench::UsageError& e) {
    if (const int signal_number = abench::interrupt_signal(); signal_number != 0) {
      std::fprintf(stderr, "abench: interrupted (%s) before measuring: nothing was written\n", sigabbrev_np(signal_number));
      return 128 + signal_number;
    }
    std::fprintf(stderr, "abench: error: %s\n", e.what());
    return abench::kExitUsage;
  } catch (const abench::EnvironmentError& e) {
    std::fprintf(stderr, "abench: the environment failed: %s\n", e.what());
    return abench::kExitEnvironment;
  } catch (const std::filesystem::filesystem_error& e) {
    std::fprintf(stderr, "abench: the environment failed: %s\n", e.what());
    return abench::kExitEnvironment;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "abench: internal error (a bug, please report it): %s\n", e.what());
    return abench::kExitBug;
  }
  return abench::kExitUsage;
}
