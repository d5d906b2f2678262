// abench: a benchmark harness for memory allocators and the buffer libraries on them.
// Parse the command line, run one subcommand, turn errors into a message and exit code.
#include <cstdio>

#include <fmt/format.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <vector>

#include "src/cli/commands.h"
#include "src/cli/options.h"
#include "src/cli/subcommands.h"
#include "src/flow/resume_command.h"
#include "src/util/errors.h"
#include "src/util/interrupt.h"
#include "src/util/text.h"

int main(int argc, char** argv) {
  CLI::App app{"abench: measure allocators and aligned buffers, one worker process per allocator"};
  app.require_subcommand(1);
  const std::vector<abench::Subcommand> subcommands = abench::register_subcommands(app);
  abench::install_interrupt_handlers();
  // Past a file size limit a write fails with EFBIG, reported as the environment's failure,
  // instead of the signal ending abench between two files.
  std::signal(SIGXFSZ, SIG_IGN);
  std::vector<std::string> args;
  abench::ResumeRequest resume;
  try {
    // CLI11 answers an unknown command with "A subcommand is required": say what was wrong.
    if (argc > 1 && argv[1][0] != '-') {
      std::string allowed;
      bool known = false;
      for (const abench::Subcommand& sub : subcommands) {
        allowed += (allowed.empty() ? "" : ", ") + sub.app->get_name();
        known |= sub.app->get_name() == argv[1];
      }
      if (!known)
        throw abench::UsageError(
            fmt::format("unknown command '{}' (allowed: {}; abench --help)", abench::printable(argv[1]), allowed));
    }
    args = abench::command_line_to_parse(argc, argv, &resume);
    abench::refuse_text_not_utf8(args);
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
  const abench::CommandContext context{args, resume};
  try {
    for (const abench::Subcommand& sub : subcommands)
      if (sub.app->parsed()) return sub.run(context);
  } catch (const abench::Interrupted& e) {
    std::fprintf(stderr, "abench: interrupted (%s): %s\n", sigabbrev_np(e.signal), e.what());
    return 128 + e.signal;
  } catch (const abench::UsageError& e) {
    if (const int signal_number = abench::interrupt_signal(); signal_number != 0) {
      std::fprintf(stderr, "abench: interrupted (%s) before measuring: nothing was written\n",
                   sigabbrev_np(signal_number));
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
