// The options the commands share, registered on CLI11 into their requests' fields: what to
// measure (every measuring command), --resume, the gate's rules, and the checks of a value.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "src/flow/gate_rules.h"
#include "src/flow/history_flow.h"
#include "src/flow/output_directory.h"
#include "src/plan/measure_options.h"

namespace abench {

// An option whose empty value would silently mean its default (`--out ''` wrote into the
// source tree's results/): refused.
inline const CLI::Validator kNotEmpty(
    [](std::string& value) {
      return value.empty() ? std::string("must not be empty (leave the option out for its default)") : std::string();
    },
    "");

void add_measure_options(CLI::App& command, MeasureOptions& options);

// UsageError naming the option whose value (or the argument that) is not valid UTF-8: text goes
// into JSON, Markdown and tables, so it is refused where it enters, before anything runs.
void refuse_text_not_utf8(const std::vector<std::string>& args);
// --resume DIR, for the help text: main() handles it before parsing (command_line_to_parse).
void add_resume_option(CLI::App& command);
// --out DIR (`help` says its default) and --force, which lets it be a directory holding what
// abench did not write (src/flow/output_directory.h).
void add_out_options(CLI::App& command, OutputDirectory& out, const std::string& help);
// --history, --commit, --branch: the run recorded in a history store (docs/history.md).
// `also`: what --history does besides recording, on this command.
void add_history_options(CLI::App& command, HistoryRecording& recording, std::string_view also = "");
// --gate-file, --threshold, --noise, --allow-unclear.
void add_gate_rule_options(CLI::App& command, GateRuleOptions& options);

}  // namespace abench
