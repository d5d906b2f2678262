#include "src/cli/measure.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/perf_counters.h"
#include "src/machine/conditions.h"
#include "src/util/errors.h"
#include "src/machine/virtualization.h"
#include "src/exports/format_registry.h"
#include "src/run/orchestrator.h"
#include "src/plan/cost.h"
#include "src/plan/protocol_fields.h"
#include "src/plan/protocol_rules.h"
#include "src/plan/shard.h"
#include "src/run/process_launcher.h"
#include "src/run/adaptive_rounds.h"
#include "src/run/explain_pass.h"
#include "src/run/beside_cpus.h"
#include "src/run/resume.h"
#include "src/util/directory_lock.h"
#include "src/util/interrupt.h"
#include "src/util/names.h"
#include "src/util/text.h"
#include "src/results/results_writers.h"
#include "src/verdict/change_rule.h"
#include "src/run/worker_registry.h"
#include "src/util/timestamp.h"

namespace abench {
namespace {

template <class T, class Parse>
void override_axis(std::vector<T>& axis, const std::vector<std::string>& values, const char* option,
                   Parse parse) {
  if (values.empty()) return;
  axis.clear();
  // Split here, not by CLI11, which drops empty items: "64,,4096" is a typo to report.
  std::vector<std::string> items;
  for (const auto& value : values)
    for (std::string& item : split_on_commas(value)) items.push_back(std::move(item));
  for (const auto& v : items) {
    if (v.empty())
      throw UsageError(fmt::format("option {}: an empty item in the list (write e.g. {} 64,4096)", option, option));
    T value = parse(v, std::string("option ") + option);
    if (std::find(axis.begin(), axis.end(), value) != axis.end())
      throw UsageError(fmt::format("option {}: '{}' is listed twice", option, v));
    axis.push_back(value);
  }
}

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

// The CPU must be one this process may run on, checked before any worker starts.
void check_cpu_allowed(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;  // the workers will say
  if (cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &allowed)) return;
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  throw UsageError(fmt::format("--cpu {}: not a CPU this process may use (allowed: {})", cpu, fmt::join(cpus, ", ")));
}

nlohmann::json number_text(const std::string& text, const std::string& where) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19)
    throw UsageError(fmt::format("{}: '{}' is not a whole number", where, text));
  return std::stoull(text);
}

void apply_overrides(Matrix& m, const MeasureOptions& o, const std::vector<std::string>& built) {
  override_axis(m.backends, o.backends, "--backend",
                [&](const auto& v, const auto& w) { return parse_backend(v, built, w); });
  override_axis(m.policies, o.policies, "--policy", parse_policy);
  override_axis(m.workloads, o.workloads, "--workload", parse_workload);
  override_axis(m.sizes, o.sizes, "--size",
                [](const auto& v, const auto& w) { return parse_size(number_text(v, w), w); });
  override_axis(m.alignments, o.alignments, "--align", parse_alignment_text);
  if (o.entry) {
    m.entry_set = parse_entry_set(*o.entry, "--entry");
    for (const auto& backend : m.backends) check_backend_offers(backend, m.entry_set, "--entry");
  } else if (!m.entry_set.empty() && !o.backends.empty()) {
    for (const auto& backend : m.backends) check_backend_offers(backend, m.entry_set, "the matrix's 'entry' with --backend");
  }
  override_axis(m.lives, o.lives, "--live",
                [](const auto& v, const auto& w) { return parse_live(number_text(v, w), w); });
  RunProtocol& p = m.protocol;
  if (o.measure && !measure_named(*o.measure, p.measure))
    throw UsageError(fmt::format("option --measure: unknown measure '{}' (allowed: {})", *o.measure, measure_names()));
  // Before the checks of what this machine can measure: the combination is wrong anywhere.
  if ((o.until_interval_percent || o.budget_s) && p.measure == Measure::instructions)
    throw UsageError(fmt::format("option {}: --measure instructions repeats its counts exactly, so more rounds "
                                 "narrow nothing; leave it out", o.budget_s ? "--budget" : "--until-interval"));
  if (o.explain) check_explain_combination(p.measure, o.shard.has_value());
  // Perf counters that cannot be opened here are an error before anything runs, never a
  // run of made-up or empty figures.
  if (is_perf(p.measure))
    if (std::string why = perf_unavailable(p.measure); !why.empty())
      throw UsageError(fmt::format("--measure {}: not supported on this machine: {}; nothing was measured. {}",
                                   name_of(p.measure), why,
                                   p.measure == Measure::perf
                                       ? "Use --measure instructions (callgrind) for deterministic figures, or "
                                         "perf-sw for the software counters"
                                       : "Check /proc/sys/kernel/perf_event_paranoid"));
  // callgrind translates the machine's own code; inside qemu-user there is none of it.
  if (p.measure == Measure::instructions)
    if (const auto emulator = emulator_of_this_process())
      throw UsageError(fmt::format("--measure instructions: not supported under emulation ({}): callgrind cannot run "
                                   "an emulated worker; nothing was measured. Count on the machine itself",
                                   *emulator));
  if (o.explain) check_explain_possible_here();
  if (p.measure == Measure::instructions) p.samples = 1;  // every sample would be the same, unless asked
  for (const auto& [key, value] : o.protocol)
    if (const std::string wrong = set_protocol_field(*protocol_field(key), value, p); !wrong.empty())
      throw UsageError(fmt::format("option {}: {}", protocol_field(key)->option, wrong));
  if (o.cpu) {
    check_cpu_allowed(*o.cpu);
    p.cpu = *o.cpu;
  }
  if (o.seed) p.seed = *o.seed;
  if (o.max_rounds && !o.until_interval_percent)
    throw UsageError("option --max-rounds: it caps --until-interval's (or --budget's) rounds; give --until-interval "
                     "or --budget too");
  if (o.budget_s && !o.until_interval_percent)
    throw UsageError("option --budget: it bounds the rounds added toward an interval's width; give --until-interval "
                     "PCT too (compare aims at --detect's)");
  if (o.until_interval_percent) {
    p.until_interval = *o.until_interval_percent / 100;
    p.budget_s = o.budget_s.value_or(0);
    p.max_rounds = o.max_rounds.value_or(std::max(o.budget_s ? kBudgetMaxRounds : kDefaultMaxRounds, p.processes));
    if (p.max_rounds < p.processes)
      throw UsageError(fmt::format("option --max-rounds: {} is below the {} rounds every cell gets first (--processes); "
                                   "allowed: {} to 1000", p.max_rounds, p.processes, p.processes));
    // A round added to some cells is a process for each of them: every round of a cell is
    // alike only when every cell has processes of its own from the first round.
    p.fresh_process_per_cell = true;
  }
  if (o.order) p.order = *o.order == "matrix" ? CellOrder::matrix : CellOrder::shuffled;
  if (o.fresh_process_per_cell) p.fresh_process_per_cell = true;
  if (o.context) use_context_protocol(p, o);
}

// One option per row of the protocol's table, its value checked by the same rule as the
// matrix file's.
void add_protocol_field_options(CLI::App& cmd, MeasureOptions& o) {
  for (const ProtocolField& f : protocol_fields()) {
    const std::string option(f.option);
    if (f.kind == ProtocolField::Kind::flag) {
      cmd.add_flag_callback(option, [&o, &f] { o.protocol[std::string(f.key)] = f.option_sets; }, std::string(f.help));
      continue;
    }
    const RunProtocol defaults;
    cmd.add_option_function<std::string>(
           option, [&o, &f](const std::string& text) { o.protocol[std::string(f.key)] = protocol_option_value(f, text); },
           fmt::format("{} (default {}; the matrix's protocol.{})", f.help,
                       protocol_field_value(f, defaults).dump(), f.key))
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
  for (const MeasureRow& row : kMeasures) measures += fmt::format("{}{} ({})", measures.empty() ? "" : "; ", row.name, row.what);
  cmd.add_option("--measure", o.measure, measures);
  cmd.add_option("--backend", o.backends, "Backends (comma-separated), e.g. system,mimalloc");
  cmd.add_option("--policy", o.policies, "Buffer policies: exact, padded");
  cmd.add_option("--workload", o.workloads, fmt::format("Workloads: {} (abench list says what each does)", fmt::join(kWorkloadNames, ", ")));
  cmd.add_option("--size", o.sizes, "Buffer sizes in bytes");
  cmd.add_option("--align", o.alignments,
                 "Alignments: N (N<=256: preferred N; N>256: requested N) or R:P");
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
  cmd.get_option("--no-pin")->excludes(
      cmd.add_option("--cpu", o.cpu, "Pin workers to this CPU (default: the last allowed)"));
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
                                                                "number with s, m or h: 90s, 10m, 1.5h)", text));
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

std::vector<std::string> command_line_to_parse(int argc, char** argv, ResumeRequest* resume) {
  std::vector<std::string> args(argv, argv + argc);
  const auto at = std::find_if(args.begin(), args.end(),
                               [](const std::string& a) { return a == "--resume" || a.starts_with("--resume="); });
  if (at == args.end() || args.size() < 2 || (args[1] != "run" && args[1] != "compare")) return args;
  const bool joined = at->starts_with("--resume=");
  const std::size_t resume_args = joined ? 3u : 4u;
  const bool trust = args.size() == resume_args + 1 && args.back() == "--trust-stored-command";
  if (at != args.begin() + 2 || args.size() != resume_args + (trust ? 1 : 0))
    throw UsageError(fmt::format("abench {} --resume DIR takes no other options but --trust-stored-command: the run "
                                 "goes on with the options it was started with", args[1]));
  resume->dir = joined ? at->substr(9) : args[3];
  if (resume->dir.empty()) throw UsageError("--resume: name the directory of the interrupted run");
  StoredCommand stored = resume_command_line(resume->dir, args[1], args[0]);
  resume->untrusted_because = trust ? "" : stored.unrecorded_because;
  // What is about to run, before it runs: the command as stored, and who vouches for it.
  std::string shown;
  for (std::size_t i = 1; i < stored.args.size(); ++i) shown += " " + printable(stored.args[i]);
  fmt::print(stderr, "resuming: abench{}\n  ({})\n", shown,
             trust ? "trusted: --trust-stored-command"
             : stored.unrecorded_because.empty()
                 ? "the command abench started there on this machine"
                 : "not vouched for: " + stored.unrecorded_because + "; it may run only abench's own workers");
  return std::move(stored.args);
}

void check_resumed_command_trusted(const MeasureOptions& o, const std::vector<Variant>& variants,
                                   const std::optional<std::string>& save_baseline) {
  if (o.resume.empty() || o.resume_untrusted_because.empty()) return;
  std::vector<std::string> named;
  for (const Variant& v : variants) {
    const auto add = [&](const char* key, const std::string& value) {
      if (!value.empty()) named.push_back(fmt::format("{}={}", key, printable(value)));
    };
    add("exe", v.exe);
    add("plugin", v.plugin);
    add("preload", v.preload);
    for (const auto& [key, value] : v.env) add("env", key + "=" + value);
  }
  if (save_baseline) named.push_back(fmt::format("--save-baseline {}", printable(*save_baseline)));
  if (named.empty()) return;
  std::sort(named.begin(), named.end());
  named.erase(std::unique(named.begin(), named.end()), named.end());
  throw UsageError(fmt::format(
      "--resume {}: the command stored in {}/results.json runs code or stores a baseline it names ({}), and abench "
      "cannot vouch for it: {}; nothing was run. If you trust that command, resume with --trust-stored-command",
      o.resume, o.resume, fmt::join(named, ", "), o.resume_untrusted_because));
}

Matrix matrix_of_results(const Matrix& stored, const MeasureOptions& o, const std::vector<std::string>& built) {
  Matrix m = stored;
  for (const std::string& backend : m.backends) parse_backend(backend, built, "baseline's matrix");
  apply_overrides(m, o, built);
  check_formats(o.formats, m.protocol.measure);
  return m;
}

Matrix load_measure_matrix(const MeasureOptions& o, const std::vector<std::string>& built) {
  Matrix matrix = load_matrix(o.matrix, built, !o.backends.empty());
  apply_overrides(matrix, o, built);
  check_formats(o.formats, matrix.protocol.measure);
  // Deterministic mode repeats exactly only with the same cell orders: a fixed seed.
  if (matrix.protocol.seed == 0 && matrix.protocol.measure == Measure::instructions) matrix.protocol.seed = 1;
  // Every shard must plan the same cell orders, and merge refuses shards of two seeds.
  if (matrix.protocol.seed == 0 && o.shard)
    throw UsageError("option --shard: give every shard the same --seed (e.g. --seed 1, or the CI run's number): each "
                     "machine would draw its own from the clock, and shards of different seeds do not merge");
  if (matrix.protocol.seed == 0)
    matrix.protocol.seed = std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32) | 1;
  return matrix;
}

Plan shard_if_asked(Plan plan, const Matrix& matrix, const MeasureOptions& options) {
  if (!options.shard) return plan;
  return shard_plan(std::move(plan), matrix.protocol, parse_shard(*options.shard, "--shard"));
}


std::filesystem::path prepare_output_dir(const std::string& out, const std::string& name, bool resume) {
  const std::filesystem::path dir =
      out.empty() ? std::filesystem::path(source_directory()) / "results" /
                        checked_name(utc_timestamp("%Y%m%d-%H%M%S-") + name, "the output directory's name")
                  : std::filesystem::path(out);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw EnvironmentError(fmt::format("--out {}: cannot create directory: {}", dir.string(), ec.message()));
  hold_output_directory(dir);  // before looking at what is there: a command writing it now is named
  if (resume) return dir;      // resume_command_line checked it holds an interrupted run
  if (std::filesystem::exists(dir / "results.json"))
    throw UsageError(fmt::format("--out {}: already holds a results.json; choose another "
                                 "directory so no earlier result is overwritten", dir.string()));
  return dir;
}

}  // namespace abench
