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

// Perf counters that cannot be opened here are an error before anything runs, never a run of
// made-up or empty figures; callgrind translates the machine's own code, and inside qemu-user
// there is none of it.
void check_measurable_here(Measure measure) {
  const MeasureRow& row = row_of(measure);
  if (row.perf_events)
    if (std::string why = perf_unavailable(measure); !why.empty())
      throw UsageError(fmt::format("--measure {}: not supported on this machine: {}; nothing was measured. {}",
                                   name_of(measure), why, row.unavailable_hint));
  if (row.callgrind)
    if (const auto emulator = emulator_of_this_process())
      throw UsageError(
          fmt::format("--measure instructions: not supported under emulation ({}): callgrind cannot run "
                      "an emulated worker; nothing was measured. Count on the machine itself",
                      *emulator));
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
  const GivenProtocol& given = o.protocol;
  if (given.has("measure")) p.measure = given.values.measure;
  const bool adaptive = given.has("until_interval.width_percent"), budget = given.has("until_interval.budget_seconds");
  // Before the checks of what this machine can measure: the combination is wrong anywhere.
  if ((adaptive || budget) && row_of(p.measure).exact)
    throw UsageError(
        fmt::format("option {}: --measure instructions repeats its counts exactly, so more rounds "
                    "narrow nothing; leave it out",
                    budget ? "--budget" : "--until-interval"));
  if (o.explain) check_explain_combination(p.measure, o.shard.has_value());
  check_measurable_here(p.measure);
  if (row_of(p.measure).exact) p.samples = 1;  // every sample would be the same, unless asked
  for (const ProtocolField& f : protocol_fields())
    if (given.keys.contains(f.key)) set_protocol_field(f, protocol_field_value(f, given.values), p);
  if (given.has("cpu")) check_cpu_allowed(p.cpu);
  if (given.has("until_interval.max_rounds") && !adaptive)
    throw UsageError(
        "option --max-rounds: it caps --until-interval's (or --budget's) rounds; give --until-interval "
        "or --budget too");
  if (budget && !adaptive)
    throw UsageError(
        "option --budget: it bounds the rounds added toward an interval's width; give --until-interval "
        "PCT too (compare aims at --detect's)");
  if (adaptive) {
    if (!given.has("until_interval.max_rounds"))
      p.max_rounds = std::max(budget ? kBudgetMaxRounds : kDefaultMaxRounds, p.processes);
    if (p.max_rounds < p.processes)
      throw UsageError(
          fmt::format("option --max-rounds: {} is below the {} rounds every cell gets first (--processes); "
                      "allowed: {} to 1000",
                      p.max_rounds, p.processes, p.processes));
    // A round added to some cells is a process for each of them: every round of a cell is
    // alike only when every cell has processes of its own from the first round.
    p.fresh_process_per_cell = true;
  }
  if (o.context) use_context_protocol(p, o);
  if (given.has("layouts")) use_layouts_protocol(p, given.has("processes"));
}

}  // namespace abench
