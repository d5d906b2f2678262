// The options every measuring command shares, registered on CLI11 into the request's
// MeasureOptions (src/plan/measure_options.h), and the gate's rule options.
#include "src/cli/options.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/layout.h"
#include "harness/protocol.h"
#include "src/exports/format_registry.h"
#include "src/plan/protocol_fields.h"
#include "src/plan/protocol_rules.h"
#include "src/util/text.h"

namespace abench {
namespace {

// A floating-point flag must be a finite number in a range a person would type: NaN passes
// every comparison, and 1e300 ms overflows the deadline built from it.
CLI::Validator finite_between(double low, double high, const char* unit) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        try {
          std::size_t used = 0;
          value = std::stod(text, &used);
          if (used != text.size()) return fmt::format("'{}' is not a number", text);
        } catch (const std::exception&) {
          return fmt::format("'{}' is not a number", text);
        }
        if (!std::isfinite(value) || value < low || value > high)
          return fmt::format("{} is out of range (allowed: {:g} to {:g} {})", text, low, high, unit);
        return "";
      },
      fmt::format("FLOAT in [{:g}, {:g}] {}", low, high, unit));
}

// One option per row of the protocol's table, its value checked by the same rule as the
// matrix file's.
void add_protocol_field_options(CLI::App& cmd, MeasureOptions& o) {
  for (const ProtocolField& f : protocol_fields()) {
    const std::string option(f.option);
    if (f.kind == ProtocolField::Kind::flag) {
      cmd.add_flag_callback(
          option, [&o, &f] { o.protocol[std::string(f.key)] = f.option_sets; }, std::string(f.help));
      continue;
    }
    const RunProtocol defaults;
    cmd.add_option_function<std::string>(
           option,
           [&o, &f](const std::string& text) { o.protocol[std::string(f.key)] = protocol_option_value(f, text); },
           fmt::format("{} (default {}; the matrix's protocol.{})", f.help, protocol_field_value(f, defaults).dump(),
                       f.key))
        ->check(CLI::Validator(
            [&f](std::string& text) -> std::string {
              RunProtocol scratch;
              const nlohmann::json value = protocol_option_value(f, text);
              if (set_protocol_field(f, value, scratch).empty()) return "";
              return fmt::format("{} (allowed: {})",
                                 value.is_string() ? fmt::format("'{}' is not a number", text)
                                                   : fmt::format("{} is out of range", text),
                                 allowed_values(f));
            },
            ""))
        ->type_name(f.kind == ProtocolField::Kind::whole ? "INT" : "FLOAT");
  }
}

}  // namespace

void add_measure_options(CLI::App& cmd, MeasureOptions& o) {
  cmd.add_option("--matrix", o.matrix, "Matrix name (matrices/NAME.json) or path to a .json file")
      ->capture_default_str();
  std::string measures;
  for (const MeasureRow& row : kMeasures)
    measures += fmt::format("{}{} ({})", measures.empty() ? "" : "; ", row.name, row.what);
  cmd.add_option("--measure", o.measure, measures);
  cmd.add_option("--backend", o.backends, "Backends (comma-separated), e.g. system,mimalloc");
  cmd.add_option("--policy", o.policies, "Buffer policies: exact, padded");
  cmd.add_option("--workload", o.workloads,
                 fmt::format("Workloads: {} (abench list says what each does)", fmt::join(kWorkloadNames, ", ")));
  cmd.add_option("--size", o.sizes, "Buffer sizes in bytes");
  cmd.add_option("--align", o.alignments, "Alignments: N (N<=256: preferred N; N>256: requested N) or R:P");
  cmd.add_option("--live", o.lives, "Live counts: buffers kept live at once");
  cmd.add_option("--order", o.order, "Cell order inside a worker")->check(CLI::IsMember({"shuffled", "matrix"}));
  cmd.add_flag("--fresh-process-per-cell", o.fresh_process_per_cell,
               "Run every cell alone in fresh processes (no allocator history)");
  cmd.add_option("--interleave", o.interleave,
                 "compare and side-by-side gate: the two sides of each cell alive at once, alternating batch by "
                 "batch (batch, the default); cell by cell, each cell a fresh process run after the other side's "
                 "(cell); or one process a side a round running every cell (process)")
      ->check(CLI::IsMember({"batch", "cell", "process"}));
  cmd.add_option("--entry", o.entry,
                 "Entry-point set the allocators are called through: portable (malloc & co., the default), "
                 "native (mi_*, mallocx/sdallocx, tc_*), rust (the allocator's Rust binding); docs/measurement.md");
  add_protocol_field_options(cmd, o);
  cmd.get_option("--no-pin")
      ->excludes(cmd.add_option("--cpu", o.cpu, "Pin workers to this CPU (default: the last allowed)"));
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
  // A whole number as typed: CLI11 would wrap -1 to 18446744073709551615.
  cmd.add_option("--seed", o.seed, "Seed for the per-process cell order (default: from the clock)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return !text.empty() && text.size() <= 20 && text.find_first_not_of("0123456789") == std::string::npos
                       ? ""
                       : fmt::format("'{}' is not a whole number from 0 to 18446744073709551615", text);
          },
          "UINT"));
  cmd.add_option("--shard", o.shard,
                 "K/N: measure only shard K of N of the plan (cells dealt by expected cost, both sides of a cell "
                 "together; the same on every machine for the same matrix, protocol and seed); abench merge joins "
                 "the shards' directories (docs/ci.md)");
  cmd.add_option("--until-interval", o.until_interval_percent,
                 "PCT: after --processes rounds, add rounds only to the cells whose interval (the change's in a "
                 "compare, the figure's in a run) is still wider than PCT percent, up to --max-rounds; every cell "
                 "a process of its own (docs/statistics.md)")
      ->check(finite_between(0.01, 100, "%"));
  cmd.add_option("--max-rounds", o.max_rounds,
                 fmt::format("With --until-interval: the most rounds a cell gets (default {})", kDefaultMaxRounds))
      ->check(CLI::Range(1, 1000));
  cmd.add_option_function<std::string>(
         "--budget",
         [&o](const std::string& text) {
           const std::optional<double> seconds = parse_duration(text);
           if (!seconds || *seconds < 1 || *seconds > kMaxBudgetSeconds)
             throw CLI::ValidationError("--budget", fmt::format("'{}' is not a duration from 1s to 168h (allowed: a "
                                                                "number with s, m or h: 90s, 10m, 1.5h)",
                                                                text));
           o.budget_s = *seconds;
         },
         "DURATION (90s, 10m, 1h): measure within this time; after --processes rounds, the cells whose interval is "
         "still wider than the target (compare: --detect, which resolves every cell; otherwise --until-interval) get "
         "rounds, those cheapest to narrow first, while the time left allows (docs/statistics.md)")
      ->type_name("DURATION");
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
