// The subcommands, one row each: how it registers its options on the CLI and how it runs.
// main() draws the command list, the "allowed:" list of an unknown command and the dispatch
// from this table; a new subcommand is its cli/command_NAME.cc and one row in subcommands.cc.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "src/cli/commands.h"
#include "src/flow/resume_command.h"

namespace abench {

// What every subcommand runs with besides its own options.
struct CommandContext {
  std::vector<std::string> command_line;  // as parsed (for --resume: the stored one)
  ResumeRequest resume;                   // run and compare: the interrupted run going on
};

struct Subcommand {
  CLI::App* app = nullptr;  // its options, registered on the main CLI
  std::function<int(const CommandContext&)> run;
};

// Registers every subcommand on `app`; each row owns its options.
std::vector<Subcommand> register_subcommands(CLI::App& app);

}  // namespace abench
