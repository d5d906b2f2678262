// The subcommands: each registers its options on the CLI and runs from plain options.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace abench {

// The verdict settings' defaults as options show them (src/verdict/compare.h's VerdictSettings).
struct VerdictDefaults {
  static constexpr double detect_percent = 3;
};

// An option whose empty value would silently mean its default (`--out ''` wrote into the
// source tree's results/): refused.
inline const CLI::Validator kNotEmpty(
    [](std::string& value) {
      return value.empty() ? std::string("must not be empty (leave the option out for its default)") : std::string();
    },
    "");

// Axis and protocol overrides shared by every command that measures.
struct MeasureOptions {
  std::string matrix = "default";
  std::optional<std::string> measure;
  std::vector<std::string> backends, policies, workloads, sizes, alignments, lives;
  // The protocol's fields of the table (src/plan/protocol_fields.h) given on the command
  // line, by key, as a matrix file would hold them.
  std::map<std::string, nlohmann::json, std::less<>> protocol;
  std::optional<int> cpu;
  std::optional<double> until_interval_percent;  // adaptive rounds (src/run/adaptive_rounds.h)
  std::optional<int> max_rounds;
  // --budget (seconds): adaptive rounds within this time, toward --until-interval's width
  // (a compare's default: --detect's, the width at which every interval is resolved).
  std::optional<double> budget_s;
  std::optional<std::string> order;
  std::optional<std::uint64_t> seed;
  bool fresh_process_per_cell = false;
  std::optional<std::string> interleave;  // paired commands: "batch" (default), "cell" or "process"
  std::vector<std::string> formats;  // src/exports/format_registry.h
  bool no_report = false;            // skip report.html and report/ (src/report/)
  // --explain: every cell once more under callgrind's simulators (src/run/explain_pass.h)
  bool explain = false;
  // run, compare --context: every cell also in fresh processes of its own (src/verdict/context.h)
  bool context = false;
  std::optional<std::string> entry;  // entry-point set for every backend
  std::optional<std::string> shard;  // "K/N": measure only shard K of the plan (src/plan/shard.h)
  // run, compare: the directory of the interrupted run this one continues (main() has
  // replaced the command line by the one stored there).
  std::string resume;
  // Why the stored command may not run the code it names ("" it may): abench has no record
  // of writing it there, and the user did not say --trust-stored-command.
  std::string resume_untrusted_because;
};

// `abench run|compare --resume DIR [--trust-stored-command]`.
struct ResumeRequest {
  std::string dir;                // "" not a resume
  std::string untrusted_because;  // as MeasureOptions::resume_untrusted_because
};

// The argument vector to parse: argv itself, or for a resume the command line stored in DIR
// with its seed and --out DIR (src/run/resume.h), after printing it; fills *resume.
std::vector<std::string> command_line_to_parse(int argc, char** argv, ResumeRequest* resume);

struct RunOptions {
  MeasureOptions measure;
  // --variant SPEC, repeatable: what to measure instead of the matrix's backends x policies
  // (compare's spec syntax, src/plan/variant.h)
  std::vector<std::string> variants;
  std::string out;
  std::optional<std::string> save_baseline;  // store results.json as results/baselines/NAME/ ('' is refused)
};

struct GateOptions {
  std::string gate_file;
  std::optional<double> threshold_percent;
  std::string noise;
  bool allow_unclear = false;
};

CLI::App* register_run_command(CLI::App& app, RunOptions& options);
int run_command(const RunOptions& options, const std::vector<std::string>& command_line);

struct CompareOptions {
  MeasureOptions measure;
  std::string baseline, candidate;
  bool gate = false;
  bool no_confirm = false;
  GateOptions gate_rules;
  double min_effect_percent = 1.0;
  double confidence = 0.95;
  double detect_percent = VerdictDefaults::detect_percent;
  std::string out;
};

CLI::App* register_compare_command(CLI::App& app, CompareOptions& options);
int compare_command(const CompareOptions& options, const std::vector<std::string>& command_line);

struct GateCommandOptions {
  MeasureOptions measure;
  std::string baseline, candidate, out;
  bool stored_figures = false;
  bool run_stored_workers = false;  // run workers beside a results.json outside results/baselines/
  bool no_confirm = false;
  double confidence = 0.95;  // VerdictSettings::confidence
  GateOptions gate;
};
CLI::App* register_gate_command(CLI::App& app, GateCommandOptions& options);
int gate_command(const GateCommandOptions& options, const std::vector<std::string>& command_line);

struct CalibrateOptions {
  MeasureOptions measure;
  std::string variant, save_noise, out;
  int runs = 3;
};
CLI::App* register_calibrate_command(CLI::App& app, CalibrateOptions& options);
int calibrate_command(const CalibrateOptions& options, const std::vector<std::string>& command_line);

struct ReportOptions {
  std::string dir;
};
CLI::App* register_report_command(CLI::App& app, ReportOptions& options);
int report_command(const ReportOptions& options);

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out;
  bool across_machines = false;
  bool no_report = false;
  std::string save_noise;  // calibrate's shards: the baseline whose floors the merge stores
  // The verdicts are judged again with these, never taken from a shard's files.
  GateOptions gate;
  double confidence = 0.95;
  double min_effect_percent = 1.0;  // compare's shards
  double detect_percent = VerdictDefaults::detect_percent;  // compare's shards
  std::string baseline;             // gate's shards: the baseline they were gated against
};
CLI::App* register_merge_command(CLI::App& app, MergeOptions& options);
int merge_command(const MergeOptions& options, const std::vector<std::string>& command_line);

CLI::App* register_list_command(CLI::App& app);
int list_command();

}  // namespace abench
