// The options every measuring command shares, registered on CLI11 into the request's
// MeasureOptions (src/plan/measure_options.h), and the gate's rule options.
#include "src/cli/options.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/layout.h"
#include "src/exports/format_registry.h"
#include "src/plan/protocol_fields.h"
#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string type_name(const ProtocolField& f) {
  using Kind = ProtocolField::Kind;
  if (f.kind == Kind::choice) return fmt::format("{}", fmt::join(f.choices, "|"));
  if (f.duration) return "DURATION";
  if (f.kind == Kind::decimal) return f.unit == "%" ? "PCT" : "FLOAT";
  return f.kind == Kind::seed ? "UINT" : "INT";
}

// One option per row of the protocol's table that has one, its value checked by the same
// rule as the matrix file's.
void add_protocol_field_options(CLI::App& cmd, MeasureOptions& o) {
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(ProtocolField::kOption)) continue;
    if (f.kind == ProtocolField::Kind::flag) {
      cmd.add_flag_callback(
          f.option, [&o, &f] { o.protocol.give(f.key, f.option_sets); }, f.help);
      continue;
    }
    const std::string in_matrix = f.in(ProtocolField::kMatrix) ? fmt::format("; the matrix's protocol.{}", f.key) : "";
    cmd.add_option_function<std::string>(
           f.option, [&o, &f](const std::string& text) { o.protocol.give(f.key, protocol_option_value(f, text)); },
           fmt::format("{} (default {}{})", f.help, default_value_text(f), in_matrix))
        ->check(CLI::Validator([&f](std::string& text) { return wrong_option_text(f, text); }, ""))
        ->type_name(type_name(f));
  }
}

}  // namespace

void refuse_text_not_utf8(const std::vector<std::string>& args) {
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const auto bad = first_invalid_utf8(arg);
    if (!bad) continue;
    // "--opt=value", "--opt value", or an argument of its own.
    const std::size_t equals = arg.find('=');
    const bool joined = arg.starts_with("--") && equals != std::string::npos && equals < *bad;
    const bool after_option = !joined && i > 1 && args[i - 1].starts_with("-") && !args[i - 1].starts_with("--=");
    const std::string what = joined         ? fmt::format("option {}: its value", arg.substr(0, equals))
                             : after_option ? fmt::format("option {}: its value", printable(args[i - 1]))
                                            : fmt::format("argument {} ('{}')", i, printable(arg));
    throw UsageError(
        fmt::format("{} is not valid UTF-8 (byte 0x{:02X} at offset {}); abench takes text as UTF-8 "
                    "(file names included): nothing was run",
                    what, static_cast<unsigned char>(arg[*bad]), joined ? *bad - equals - 1 : *bad));
  }
}

void add_measure_options(CLI::App& cmd, MeasureOptions& o) {
  cmd.add_option("--matrix", o.matrix, "Matrix name (matrices/NAME.json) or path to a .json file")
      ->capture_default_str();
  cmd.add_option("--backend", o.backends, "Backends (comma-separated), e.g. system,mimalloc");
  cmd.add_option("--policy", o.policies, "Buffer policies: exact, padded");
  cmd.add_option("--workload", o.workloads,
                 fmt::format("Workloads: {} (abench list says what each does)", fmt::join(kWorkloadNames, ", ")));
  cmd.add_option("--size", o.sizes, "Buffer sizes in bytes");
  cmd.add_option("--align", o.alignments, "Alignments: N (N<=256: preferred N; N>256: requested N) or R:P");
  cmd.add_option("--live", o.lives, "Live counts: buffers kept live at once");
  cmd.add_option("--interleave", o.interleave,
                 "compare and side-by-side gate: the two sides of each cell alive at once, alternating batch by "
                 "batch (batch, the default); cell by cell, each cell a fresh process run after the other side's "
                 "(cell); or one process a side a round running every cell (process)")
      ->check(CLI::IsMember({"batch", "cell", "process"}));
  cmd.add_option("--entry", o.entry,
                 "Entry-point set the allocators are called through: portable (malloc & co., the default), "
                 "native (mi_*, mallocx/sdallocx, tc_*), rust (the allocator's Rust binding); docs/measurement.md");
  add_protocol_field_options(cmd, o);
  cmd.get_option("--no-pin")->excludes(cmd.get_option("--cpu"));
  cmd.add_flag("--explain", o.explain, "Also count each cell's instructions and simulated misses (docs/explain.md)");
  cmd.add_flag("--context", o.context,
               "Also measure every cell alone in fresh processes, paired round by round with the matrix's, and flag "
               "the cells whose figure depends on what ran before them (results.csv: fresh_ns_per_op, "
               "context_change, context; compare: the main table's context column; docs/measurement.md)");
  cmd.add_flag("--no-report", o.no_report, "Do not draw report.html and report/ (abench report DIR draws them later)");
  // Split here, not by CLI11, which drops empty items: "go,,bencher" is a typo to report.
  cmd.add_option_function<std::vector<std::string>>(
         "--format",
         [&o](const std::vector<std::string>& values) {
           for (const std::string& value : values)
             for (std::string& item : split_on_commas(value)) o.formats.push_back(std::move(item));
         },
         formats_help())
      ->type_name("TEXT");
  cmd.add_option("--shard", o.shard,
                 "K/N: measure only shard K of N of the plan (cells dealt by expected cost, both sides of a cell "
                 "together; the same on every machine for the same matrix, protocol and seed); abench merge joins "
                 "the shards' directories (docs/ci.md)");
}

void add_out_options(CLI::App& cmd, OutputDirectory& out, const std::string& help) {
  cmd.add_option("--out", out.path, help)->check(kNotEmpty);
  cmd.add_flag("--force", out.force,
               "Write into --out even though it holds files abench did not write (another tool's report, "
               "someone's files): abench's own files there are replaced, the rest left as they are");
}

void add_resume_option(CLI::App& cmd) {
  cmd.add_option_function<std::string>(
      "--resume", [](const std::string&) {},
      "Continue the interrupted run in DIR with the options, plan and seed it was started with; alone on the "
      "command line but for --trust-stored-command");
  // Read by command_line_to_parse from the typed command line only, never from a stored one.
  cmd.add_flag_callback(
      "--trust-stored-command", [] {},
      "With --resume: run the code the stored command names (exe=, plugin=, preload=, env=) and its "
      "--save-baseline although abench has no record of starting that command in DIR on this machine "
      "(docs/security.md)");
}

void add_history_options(CLI::App& cmd, HistoryRecording& o, std::string_view also) {
  cmd.add_option("--history", o.store,
                 fmt::format("Also record the run in this history store: a SQLite file's path or a postgresql:// URL"
                             "{} (docs/history.md)",
                             also))
      ->check(kNotEmpty);
  cmd.add_option("--commit", o.commit, "With --history: the commit measured (default: the CI's GITHUB_SHA, ...)");
  cmd.add_option("--branch", o.branch, "With --history: its branch (default: the CI's GITHUB_REF_NAME, ...)");
}

void add_gate_rule_options(CLI::App& cmd, GateRuleOptions& o) {
  cmd.add_option("--gate-file", o.gate_file, "JSON thresholds: global, per workload, per cell pattern");
  cmd.add_option("--threshold", o.threshold_percent, "Global threshold in percent (default 5; instructions 0.5)")
      ->check(CLI::Range(0.0, 1000.0));
  cmd.add_option("--noise", o.noise, "Noise floors from abench calibrate: a stored NAME or a noise.json path");
  cmd.add_flag("--allow-unclear", o.allow_unclear,
               "Pass a cell that was not called although its interval reaches past the threshold on the slower side "
               "(by default such a cell is UNCLEAR and the gate exits 3)");
}

}  // namespace abench
