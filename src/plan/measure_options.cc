#include "src/plan/measure_options.h"

#include <sched.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/perf_counters.h"
#include "src/machine/virtualization.h"
#include "src/plan/protocol_fields.h"
#include "src/plan/protocol_rules.h"
#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

template <class T, class Parse>
void override_axis(std::vector<T>& axis, const std::vector<std::string>& values, const char* option, Parse parse) {
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

}  // namespace

void check_explain_combination(Measure measure, bool sharded) {
  if (row_of(measure).callgrind)
    throw UsageError(
        "option --explain: --measure instructions already counts the instructions (and the simulated "
        "misses); --explain adds them to a timed run");
  if (sharded) throw UsageError("option --explain: not with --shard (explain the cells in one run)");
}

void apply_measure_options(Matrix& m, const MeasureOptions& o, const std::vector<std::string>& built) {
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
    for (const auto& backend : m.backends)
      check_backend_offers(backend, m.entry_set, "the matrix's 'entry' with --backend");
  }
  override_axis(m.lives, o.lives, "--live",
                [](const auto& v, const auto& w) { return parse_live(number_text(v, w), w); });
  RunProtocol& p = m.protocol;
  if (o.measure && !measure_named(*o.measure, p.measure))
    throw UsageError(fmt::format("option --measure: unknown measure '{}' (allowed: {})", *o.measure, measure_names()));
  // Before the checks of what this machine can measure: the combination is wrong anywhere.
  if ((o.until_interval_percent || o.budget_s) && row_of(p.measure).exact)
    throw UsageError(
        fmt::format("option {}: --measure instructions repeats its counts exactly, so more rounds "
                    "narrow nothing; leave it out",
                    o.budget_s ? "--budget" : "--until-interval"));
  if (o.explain) check_explain_combination(p.measure, o.shard.has_value());
  // Perf counters that cannot be opened here are an error before anything runs, never a
  // run of made-up or empty figures.
  if (row_of(p.measure).perf_events)
    if (std::string why = perf_unavailable(p.measure); !why.empty())
      throw UsageError(fmt::format("--measure {}: not supported on this machine: {}; nothing was measured. {}",
                                   name_of(p.measure), why, row_of(p.measure).unavailable_hint));
  // callgrind translates the machine's own code; inside qemu-user there is none of it.
  if (row_of(p.measure).callgrind)
    if (const auto emulator = emulator_of_this_process())
      throw UsageError(
          fmt::format("--measure instructions: not supported under emulation ({}): callgrind cannot run "
                      "an emulated worker; nothing was measured. Count on the machine itself",
                      *emulator));
  if (row_of(p.measure).exact) p.samples = 1;  // every sample would be the same, unless asked
  for (const auto& [key, value] : o.protocol)
    if (const std::string wrong = set_protocol_field(*protocol_field(key), value, p); !wrong.empty())
      throw UsageError(fmt::format("option {}: {}", protocol_field(key)->option, wrong));
  if (o.cpu) {
    check_cpu_allowed(*o.cpu);
    p.cpu = *o.cpu;
  }
  if (o.seed) p.seed = *o.seed;
  if (o.max_rounds && !o.until_interval_percent)
    throw UsageError(
        "option --max-rounds: it caps --until-interval's (or --budget's) rounds; give --until-interval "
        "or --budget too");
  if (o.budget_s && !o.until_interval_percent)
    throw UsageError(
        "option --budget: it bounds the rounds added toward an interval's width; give --until-interval "
        "PCT too (compare aims at --detect's)");
  if (o.until_interval_percent) {
    p.until_interval = *o.until_interval_percent / 100;
    p.budget_s = o.budget_s.value_or(0);
    p.max_rounds = o.max_rounds.value_or(std::max(o.budget_s ? kBudgetMaxRounds : kDefaultMaxRounds, p.processes));
    if (p.max_rounds < p.processes)
      throw UsageError(
          fmt::format("option --max-rounds: {} is below the {} rounds every cell gets first (--processes); "
                      "allowed: {} to 1000",
                      p.max_rounds, p.processes, p.processes));
    // A round added to some cells is a process for each of them: every round of a cell is
    // alike only when every cell has processes of its own from the first round.
    p.fresh_process_per_cell = true;
  }
  if (o.order) p.order = *o.order == "matrix" ? CellOrder::matrix : CellOrder::shuffled;
  if (o.fresh_process_per_cell) p.fresh_process_per_cell = true;
  if (o.context) use_context_protocol(p, o);
}

}  // namespace abench
