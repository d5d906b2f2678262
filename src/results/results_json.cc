#include <cstring>

#include <fmt/format.h>

#include "harness/instruction_counter.h"
#include "harness/json_fields.h"
#include "harness/perf_counters.h"
#include "src/util/atomic_file.h"
#include "src/plan/protocol_fields.h"
#include "src/plan/protocol_rules.h"
#include "allocators/backends.h"
#include "src/results/results_writers.h"

namespace abench {
namespace {

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json batch_rules_json() {
  return {{"warm_up", fmt::format("double the count until a batch lasts min_batch_ms/{}, then run the count "
                                  "predicted to last {:g} x min_batch_ms/{} (again while one falls short of "
                                  "min_batch_ms/{}), then repeat it until two "
                                  "batches in a row agree within {:g}% (at most {} repeats, and none begun once the "
                                  "warm-up took {} x min_batch_ms; processes[].warm says which); without a "
                                  "partner (run), none where verifying the cell (its buffers built once, "
                                  "untimed) took that long: its first sample, of one iteration, gives the rate",
                                  kProbeDivisor * kTimeableDivisor, kProbeMargin, kProbeDivisor, kProbeDivisor,
                                  kWarmTolerance * 100, kMaxWarmBatches, kWarmupBudget)},
          {"long_batches", fmt::format("without a partner (run), where a batch is predicted to last {:g} x "
                                       "min_batch_ms or more (one iteration outlasts it), a process takes the "
                                       "samples that fill samples x min_batch_ms, at least {} "
                                       "(processes[].samples_ns_per_op has each)",
                                       kLongBatch, kMinSamples)},
          {"count",
           "predicted for min_batch_ms from the last warm-up batch, and without a partner (run) "
           "again before each sample from the median time per iteration of the samples before it"},
          {"stretch_max", kDefaultStretch},
          {"stretch",
           "sample k runs the count x (1 + stretch_max x (u_k - 1/2)), u_k in [0, 1) from the process's seed "
           "and the cell (both sides of a pair alike); processes[].sample_iterations"}};
}

namespace {

nlohmann::json protocol_json(const RunProtocol& p, const nlohmann::json& stored_batch_rules) {
  nlohmann::json j = protocol_fields_json(p);
  j["unstable_spread"] = kUnstableSpread;
  j["batch"] = stored_batch_rules.is_null() ? batch_rules_json() : stored_batch_rules;
  if (row_of(p.measure).callgrind)
    j["instructions_mode"] = {
        {"tool", "valgrind --tool=callgrind --collect-atstart=no --cache-sim=yes --branch-sim=yes --dump-instr=yes"},
        {"operations_per_cell", kInstructionModeOperations},
        {"jemalloc_malloc_conf", backend_named("jemalloc")->deterministic_env_value}};
  if (row_of(p.measure).perf_events) {
    nlohmann::json events = nlohmann::json::array();
    for (const PerfEventSpec& e : perf_events_of(p.measure)) events.push_back(e.name);
    j["perf_mode"] = {{"events", events},
                      {"metric", events.front()},
                      {"scope", "user space of the worker's measuring thread (exclude_kernel, exclude_hv)"},
                      {"read", "one group read before and after every timed batch; multiplexed groups are refused"}};
  }
  return j;
}

nlohmann::json matrix_json(const Matrix& m) {
  nlohmann::json policies = nlohmann::json::array(), workloads = nlohmann::json::array();
  for (Policy p : m.policies) policies.push_back(name_of(p));
  for (Workload w : m.workloads) workloads.push_back(name_of(w));
  return {{"name", m.name},
          {"path", m.path},
          {"description", m.description},
          {"backends", m.backends},
          {"policies", policies},
          {"workloads", workloads},
          {"sizes", m.sizes},
          {"alignments", m.alignments},
          {"live", m.lives},
          {"entry", m.entry_set.empty() ? nlohmann::json(nullptr) : nlohmann::json(m.entry_set)}};
}

nlohmann::json finished_rounds(const CellRecord& record) {
  nlohmann::json rounds = nlohmann::json::array();
  for (int round : record.rounds_done) rounds.push_back(round + 1);
  return rounds;
}

nlohmann::json worker_json(const RunResults& r, const WorkerRecord& w) {
  nlohmann::json j{{"mode", w.job.mode == WorkerMode::count ? "count" : "time"},
                   {"round", w.job.round + 1},
                   {"variant", r.plan.variants[w.job.variant].label()},
                   {"seed", w.job.seed},
                   {"cells", w.job.cell_ids},
                   {"finished", w.finished},
                   {"wall_s", w.wall_s},
                   {"outcome", describe(w.outcome)}};
  if (w.hello) {
    j["pid"] = w.hello->pid;
    j["pinned_cpu"] = w.hello->pinned_cpu < 0 ? nlohmann::json(nullptr) : nlohmann::json(w.hello->pinned_cpu);
    j["order"] = w.hello->order;
    if (!w.hello->perf_events.empty()) j["perf_events"] = w.hello->perf_events;
  }
  if (!w.protocol_error.empty()) j["error"] = w.protocol_error;
  if (!w.outcome.stderr_tail.empty()) j["stderr_tail"] = w.outcome.stderr_tail;
  if (!w.outcome.stdout_tail.empty()) j["stdout_tail"] = w.outcome.stdout_tail;  // a plugin's printf
  if (w.job.continuation) j["continues_after_a_failure"] = true;
  return j;
}

nlohmann::json variant_json(const RunResults& r, std::size_t v) {
  const Variant& spec = r.plan.variants[v];
  nlohmann::json variant{{"label", spec.label()},          {"backend", spec.backend}, {"policy", name_of(spec.policy)},
                         {"plugin", spec.plugin},          {"preload", spec.preload}, {"exe", spec.exe},
                         {"env", nlohmann::json::object()}};
  for (const auto& [key, value] : spec.env) variant["env"][key] = value;
  if (const WorkerHello* hello = hello_of_variant(r, v)) {
    put_stored_hello(variant, *hello);
    if (!hello->entry_functions.empty()) variant["entry_functions"] = hello->entry_functions;
  }
  return variant;
}

nlohmann::json process_json(const ProcessMeasurement& p, const MetricNames& names) {
  nlohmann::json process{{"round", p.round + 1},
                         {"pid", p.pid},
                         {"cpu", p.cpu},
                         {"seed", p.seed},
                         {"iterations", p.iterations},
                         {"warmup_batches", p.warmup_batches},
                         {"warm", p.warm},
                         {names.process_median, p.median_ns_per_op},
                         {names.samples, p.sample_ns_per_op}};
  if (p.data_accesses_per_op) process["data_accesses_per_op"] = *p.data_accesses_per_op;
  if (!p.sample_iterations.empty()) process["sample_iterations"] = p.sample_iterations;
  if (!p.counter_samples_per_op.empty()) process["counter_samples_per_op"] = p.counter_samples_per_op;
  if (p.layout) {
    process["layout"] = {{"seed", p.layout->seed}, {"stack_shift", p.layout->stack_shift}};
    if (p.layout->index >= 0) process["layout"]["index"] = p.layout->index;
  }
  return process;
}

nlohmann::json cell_json(const RunResults& r, const CellRecord& record, const MetricNames& names) {
  const CellSpec& spec = record.cell.spec;
  const Variant& variant = r.plan.variants[record.cell.variant];
  const CellSummary& s = record.summary;
  nlohmann::json processes = nlohmann::json::array();
  for (const auto& p : record.processes) processes.push_back(process_json(p, names));
  nlohmann::json cell{
      {"id", spec.id},
      {"variant", variant.label()},
      {"side", side_of(r, record)},
      {"backend", variant.backend},
      {"policy", name_of(spec.policy)},
      {"workload", name_of(spec.workload)},
      {"size", spec.size},
      {"requested_align", spec.alignment.requested},
      {"preferred_align", spec.alignment.preferred},
      {"live", spec.live},
      {"status", name_of(s.status)},
      {"errors", record.failures},
      {names.per_op, optional_number(s.ns_per_op)},
      {names.process_min, optional_number(s.process_min_ns)},
      {names.process_max, optional_number(s.process_max_ns)},
      {names.best, optional_number(s.best)},
      {"unstable", s.unstable},
      {"iterations", s.iterations},
      {"ops_per_iteration", spec.live},
      {"samples", s.samples},
      {"elision_suspected", s.elision_suspected},
      {"counts", record.counts ? nlohmann::json(*record.counts) : nlohmann::json(nullptr)},
      {"counts_unavailable",
       record.counts_unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(record.counts_unavailable)},
      {"count_check", s.count_check.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.count_check)},
      {"processes", processes},
      {"refusal", record.refusal.empty() ? nlohmann::json(nullptr) : nlohmann::json(record.refusal)},
      {"finished_rounds", finished_rounds(record)},
      {"counting_finished", record.counting_done}};
  if (!s.counters_per_op.empty()) cell["counters_per_op"] = s.counters_per_op;
  if (s.layout)  // from the processes' figures and layouts: written for the reader, read back never
    cell["layout_spread"] = {{"layouts", s.layout->layouts},
                             {"range", s.layout->range},
                             {"p_value", s.layout->p_value},
                             {"sensitive", s.layout->sensitive(layout_margin(r.protocol))}};
  if (record.shard > 0) {
    cell["shard"] = record.shard;
    cell["machine_fingerprint"] = record.machine_fingerprint;
  }
  if (spec.workload == Workload::xthread && s.ns_per_op && row_of(r.protocol.measure).wall_clock)
    cell["objects_per_second"] = 1e9 / *s.ns_per_op;
  if (record.counts)
    for (const char* key : {"type", "id", "status"}) cell["counts"].erase(key);
  return cell;
}

}  // namespace

nlohmann::json results_to_json(const RunResults& r) {
  nlohmann::json variants = nlohmann::json::array();
  for (std::size_t v = 0; v < r.plan.variants.size(); ++v) variants.push_back(variant_json(r, v));
  nlohmann::json cells = nlohmann::json::array();
  const MetricNames& names = metric_names(r.protocol.measure);
  for (const CellRecord& record : r.cells) cells.push_back(cell_json(r, record, names));

  nlohmann::json workers = r.earlier_workers;
  for (const auto& w : r.workers) workers.push_back(worker_json(r, w));

  nlohmann::json out = {
      {"schema", "abench.results"},
      {"schema_version", kResultsSchemaVersion},
      {"complete", r.complete},
      {"interrupted_by", r.interrupted_by ? nlohmann::json(sigabbrev_np(r.interrupted_by)) : nlohmann::json(nullptr)},
      {"started_at", r.started_at},
      {"run_id", r.run_id},
      {"finished_at", r.finished_at.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.finished_at)},
      {"command_line", r.command_line},
      {"matrix", matrix_json(r.matrix)},
      {"protocol", protocol_json(r.protocol, r.stored_batch_rules)},
      {"conditions", conditions_to_json(r.conditions)},
      {"variants", variants},
      {"workers", workers},
      {"cells", cells}};
  if (const auto& shard = r.plan.shard)
    out["shard"] = {{"index", shard->index},           {"count", shard->count},
                    {"plan_cells", shard->plan_cells}, {"plan_ids", shard->plan_ids},
                    {"expected_s", shard->expected_s}, {"plan_expected_s", shard->plan_expected_s}};
  if (r.merge) out["merge"] = *r.merge;
  return out;
}

nlohmann::json workers_in_plan(const nlohmann::json& workers, const std::vector<int>& plan_ids, int shard) {
  nlohmann::json renumbered = nlohmann::json::array();
  for (nlohmann::json w : workers) {
    std::vector<int> ids;
    for (const auto& local : w.at("cells")) ids.push_back(plan_ids.at(whole_number<std::size_t>(local, "cells[]")));
    w["cells"] = ids;
    w["shard"] = shard;
    renumbered.push_back(std::move(w));
  }
  return renumbered;
}

void write_result_files(const std::filesystem::path& dir, const RunResults& results) {
  // replace: a byte that is not UTF-8 must not cost the results (text from workers is
  // made printable where it enters; this is the last guard).
  write_file_atomically(dir / "results.json",
                        results_to_json(results).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  write_file_atomically(dir / "results.csv", results_to_csv(results));
}

}  // namespace abench
