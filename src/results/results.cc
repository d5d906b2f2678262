#include "src/results/results.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/stats/statistics.h"

namespace abench {

std::string side_of(const RunResults& results, const CellRecord& cell) {
  if (results.plan.partner.empty()) return "";
  return cell.cell.variant % 2 == 0 ? "baseline" : "candidate";
}

void take_measurements(CellRecord& into, const CellRecord& from) {
  into.processes = from.processes;
  into.failures = from.failures;
  into.refusal = from.refusal;
  into.counts = from.counts;
  into.counts_unavailable = from.counts_unavailable;
  into.rounds_done = from.rounds_done;
  into.counting_done = from.counting_done;
}

void resummarize(CellRecord& cell, const RunProtocol& protocol) {
  cell.summary = summarize(cell, protocol.processes, protocol.measure);
}

void resummarize_all(RunResults& results) {
  for (CellRecord& cell : results.cells) resummarize(cell, results.protocol);
}

ProcessSamples samples_of(const CellRecord& cell) {
  ProcessSamples processes;
  for (const auto& p : cell.processes) processes.push_back(p.sample_ns_per_op);
  return processes;
}

std::string cell_key(const RunResults& results, const CellRecord& cell) {
  const CellSpec& s = cell.cell.spec;
  return fmt::format("{}/{}/{}/{}/{}:{}/{}", results.plan.variants[cell.cell.variant].backend, name_of(s.policy),
                     name_of(s.workload), s.size, s.alignment.requested, s.alignment.preferred, s.live);
}

std::string_view name_of(CellStatus status) {
  switch (status) {
    case CellStatus::pending: return "pending";
    case CellStatus::partial: return "partial";
    case CellStatus::ok: return "ok";
    case CellStatus::failed: return "failed";
    case CellStatus::refused: return "refused";
  }
  return "?";
}

const MetricNames& metric_names(Measure measure) {
  static const MetricNames time{"ns_per_op",      "process_min_ns",    "process_max_ns", "median_ns_per_op",
                                "best_ns_per_op", "samples_ns_per_op", "ns/op"};
  static const MetricNames instructions{"instructions_per_op",
                                        "process_min_instructions",
                                        "process_max_instructions",
                                        "median_instructions_per_op",
                                        "best_instructions_per_op",
                                        "samples_instructions_per_op",
                                        "instr/op"};
  static const MetricNames cycles{
      "cycles_per_op",      "process_min_cycles",    "process_max_cycles", "median_cycles_per_op",
      "best_cycles_per_op", "samples_cycles_per_op", "cycles/op"};
  static const MetricNames task_clock{"task_clock_ns_per_op",      "process_min_task_clock_ns",
                                      "process_max_task_clock_ns", "median_task_clock_ns_per_op",
                                      "best_task_clock_ns_per_op", "samples_task_clock_ns_per_op",
                                      "task-clock ns/op"};
  // In kMeasures' order.
  static const std::array<const MetricNames*, kMeasures.size()> kByMeasure{&time, &instructions, &cycles, &task_clock};
  return *kByMeasure[static_cast<std::size_t>(measure)];
}

CellSummary summarize(const CellRecord& record, int expected_processes, Measure measure) {
  CellSummary s;
  s.processes = static_cast<int>(record.processes.size());
  if (!record.failures.empty()) {
    s.status = CellStatus::failed;
    s.error = record.failures.front();
  } else if (!record.refusal.empty() && record.processes.empty()) {
    s.status = CellStatus::refused;
    s.error = record.refusal;
  } else if (s.processes >= expected_processes) {
    s.status = CellStatus::ok;
  } else if (s.processes > 0) {
    s.status = CellStatus::partial;
    s.error = fmt::format("measured by {} of its {} processes", s.processes, expected_processes);
  }
  if (!record.counts && !record.counts_unavailable.empty()) s.count_check = "unavailable: " + record.counts_unavailable;
  if (record.counts) {
    const CellCounts& c = *record.counts;
    if (c.requests_min < c.expected_requests_min || c.requests_max > c.expected_requests_max)
      s.count_check =
          fmt::format("mismatch: {}..{} requests per buffer, the workload must make {}..{}", c.requests_min,
                      c.requests_max, c.expected_requests_min,
                      c.expected_requests_max == kAnyNumberOfRequests ? std::string("any")
                                                                      : std::to_string(c.expected_requests_max));
    else if (const std::uint64_t buffers = record.cell.spec.workload == Workload::noop ? 0 : c.operations;
             c.builtin_buffer && c.frees != buffers)
      s.count_check = fmt::format("mismatch: {} frees for {} buffers", c.frees, buffers);
    else
      s.count_check = "ok";
  }
  if (record.processes.empty()) return s;

  std::vector<double> medians;
  std::vector<double> iterations;
  for (const auto& p : record.processes) {
    medians.push_back(p.median_ns_per_op);
    iterations.push_back(static_cast<double>(p.iterations));
  }
  s.ns_per_op = median(medians);
  for (const auto& p : record.processes)
    for (double sample : p.sample_ns_per_op) s.best = s.best ? std::min(*s.best, sample) : sample;
  s.process_min_ns = minimum(medians);
  s.process_max_ns = maximum(medians);
  s.iterations = static_cast<std::uint64_t>(median(iterations));
  s.samples = static_cast<int>(record.processes.front().sample_ns_per_op.size());
  std::map<std::string, std::vector<double>> counter_medians;
  for (const auto& p : record.processes)
    for (const auto& [event, samples] : p.counter_samples_per_op) counter_medians[event].push_back(median(samples));
  for (const auto& [event, values] : counter_medians) s.counters_per_op[event] = median(values);
  s.unstable = medians.size() > 1 && *s.process_max_ns > kUnstableSpread * *s.process_min_ns;
  // 20,000 permutations: once the cell has all its rounds, not each time a process is added.
  if (s.status == CellStatus::ok) {
    std::vector<int> layouts;
    for (const auto& p : record.processes) layouts.push_back(p.layout ? p.layout->index : -1);
    s.layout = layout_spread(medians, layouts);
  }
  s.elision_suspected = row_of(measure).wall_clock && record.cell.spec.workload != Workload::noop &&
                        *s.ns_per_op < kMinPlausibleNsPerAllocatingOp;
  return s;
}

double layout_margin(const RunProtocol& protocol) {
  return protocol.until_interval > 0 ? protocol.until_interval : 0.03;
}

std::string timed_loop_phrase(std::string_view identity) {
  return identity.empty() ? std::string("a timed loop its worker did not name (a build before abench named them)")
                          : fmt::format("timed loop {}", identity);
}

void put_stored_hello(nlohmann::json& variant, const WorkerHello& hello) {
  for (const StoredHelloField& field : kStoredHelloFields)
    if (field.written_when_empty || !(hello.*field.member).empty()) variant[field.key] = hello.*field.member;
}

bool is_timed_loop_or_empty(std::string_view text) {
  return text.empty() || (text.size() == 16 && text.find_first_not_of("0123456789abcdef") == std::string_view::npos);
}

const WorkerHello* hello_of_variant(const RunResults& results, std::size_t variant) {
  // A timed worker's first: a counting worker serves malloc through its own counting
  // wrappers, so its entry functions are those wrappers, not the allocator's.
  for (const auto& w : results.workers)
    if (w.job.variant == variant && w.hello && w.job.mode == WorkerMode::time) return &*w.hello;
  for (const auto& w : results.workers)
    if (w.job.variant == variant && w.hello) return &*w.hello;
  if (variant < results.stored_hellos.size() && results.stored_hellos[variant]) return &*results.stored_hellos[variant];
  return nullptr;
}

}  // namespace abench
