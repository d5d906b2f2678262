#include "harness/protocol.h"

#include "harness/json_fields.h"

#include <stdexcept>

namespace abench {
namespace {

template <class Enum, std::size_t N>
Enum enum_field(const nlohmann::json& j, const char* key, const std::array<std::string_view, N>& names) {
  const auto name = j.at(key).get<std::string>();
  if (auto value = enum_from_name<Enum>(names, name)) return *value;
  throw std::invalid_argument(std::string("unknown ") + key + " '" + name + "'");
}

}  // namespace

void to_json(nlohmann::json& j, const Alignment& a) { j = {{"requested", a.requested}, {"preferred", a.preferred}}; }
void from_json(const nlohmann::json& j, Alignment& a) {
  read_field(j, "requested", a.requested);
  read_field(j, "preferred", a.preferred);
}

void to_json(nlohmann::json& j, const CellSpec& c) {
  j = {{"id", c.id},     {"workload", name_of(c.workload)}, {"policy", name_of(c.policy)},
       {"size", c.size}, {"alignment", c.alignment},        {"live", c.live}};
  if (c.fixed_iterations) j["fixed_iterations"] = c.fixed_iterations;
}
void from_json(const nlohmann::json& j, CellSpec& c) {
  read_field(j, "id", c.id);
  c.workload = enum_field<Workload>(j, "workload", kWorkloadNames);
  c.policy = enum_field<Policy>(j, "policy", kPolicyNames);
  read_field(j, "size", c.size);
  read_field(j, "alignment", c.alignment);
  read_field(j, "live", c.live);
  c.fixed_iterations = j.value("fixed_iterations", std::uint64_t{0});
}

const char* name_of(Measure measure) {
  for (const MeasureRow& row : kMeasures)
    if (row.measure == measure) return row.name.data();
  return "?";
}

std::string measure_names() {
  std::string names;
  for (const MeasureRow& row : kMeasures) names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

bool measure_named(std::string_view name, Measure& measure) {
  for (const MeasureRow& row : kMeasures)
    if (name == row.name) {
      measure = row.measure;
      return true;
    }
  return false;
}

void to_json(nlohmann::json& j, const WorkerRequest& r) {
  j = {{"protocol", r.protocol},
       {"mode", r.mode == WorkerMode::count ? "count" : "time"},
       {"cells", r.cells},
       {"min_batch_ns", r.sampler.min_batch_ns},
       {"samples", r.sampler.samples},
       {"fixed_iterations", r.sampler.fixed_iterations},
       {"follow_rate", r.sampler.follow_rate},
       {"touch", r.touch},
       {"pin", r.pin},
       {"cpu", r.cpu},
       {"order", r.order == CellOrder::matrix ? "matrix" : "shuffled"},
       {"seed", r.seed},
       {"plugin", r.plugin},
       {"measure", name_of(r.measure)},
       {"entry_set", r.entry_set},
       {"paced", r.paced},
       {"pin_when_told", r.pin_when_told}};
}
void from_json(const nlohmann::json& j, WorkerRequest& r) {
  read_field(j, "protocol", r.protocol);
  if (r.protocol != kProtocolVersion)
    throw std::invalid_argument("protocol version " + std::to_string(r.protocol) +
                                " not supported (this worker speaks " + std::to_string(kProtocolVersion) + ")");
  const std::string mode = j.value("mode", "time");
  if (mode != "time" && mode != "count")
    throw std::invalid_argument("unknown mode '" + mode + "' (allowed: time, count)");
  r.mode = mode == "count" ? WorkerMode::count : WorkerMode::time;
  read_field(j, "cells", r.cells);
  read_field(j, "min_batch_ns", r.sampler.min_batch_ns);
  read_field(j, "samples", r.sampler.samples);
  read_field(j, "fixed_iterations", r.sampler.fixed_iterations);
  r.sampler.follow_rate = j.value("follow_rate", false);
  read_field(j, "touch", r.touch);
  read_field(j, "pin", r.pin);
  read_field(j, "cpu", r.cpu);
  r.order = j.at("order").get<std::string>() == "matrix" ? CellOrder::matrix : CellOrder::shuffled;
  read_field(j, "seed", r.seed);
  r.plugin = j.value("plugin", "");
  r.entry_set = j.value("entry_set", "");
  r.paced = j.value("paced", false);
  r.pin_when_told = j.value("pin_when_told", false);
  if (const std::string measure = j.value("measure", "time"); !measure_named(measure, r.measure))
    throw std::invalid_argument("unknown measure '" + measure + "' (allowed: " + measure_names() + ")");
}

void to_json(nlohmann::json& j, const WorkerHello& h) {
  j = {{"type", "hello"},
       {"protocol", kProtocolVersion},
       {"backend", h.backend},
       {"allocator_version", h.allocator_version},
       {"malloc_object", h.malloc_object},
       {"pinned_cpu", h.pinned_cpu},
       {"pid", h.pid},
       {"order", h.order},
       {"compiler", h.compiler},
       {"cxx_flags", h.cxx_flags},
       {"git_revision", h.git_revision},
       {"timed_loop", h.timed_loop},
       {"subject", h.subject},
       {"entry_set", h.entry_set},
       {"entry_calls", h.entry_calls},
       // It accepts a byte-identical copy of the library it was built against (abench copies it
       // per process, src/run/process_copy.h); a worker built before that would refuse one.
       {"accepts_library_copy", true}};
  if (!h.perf_events.empty()) j["perf_events"] = h.perf_events;
  if (!h.entry_functions.empty()) j["entry_functions"] = h.entry_functions;
}
void from_json(const nlohmann::json& j, WorkerHello& h) {
  read_field(j, "backend", h.backend);
  read_field(j, "allocator_version", h.allocator_version);
  read_field(j, "malloc_object", h.malloc_object);
  read_field(j, "pinned_cpu", h.pinned_cpu);
  read_field(j, "pid", h.pid);
  read_field(j, "order", h.order);
  h.compiler = j.value("compiler", "");
  h.cxx_flags = j.value("cxx_flags", "");
  h.git_revision = j.value("git_revision", "");
  h.timed_loop = j.value("timed_loop", "");
  h.subject = j.value("subject", "");
  h.entry_set = j.value("entry_set", "");
  h.perf_events = j.value("perf_events", "");
  h.entry_calls = j.value("entry_calls", "");
  if (j.contains("entry_functions")) j.at("entry_functions").get_to(h.entry_functions);
}

void to_json(nlohmann::json& j, const CellReport& r) {
  j = {{"type", "cell"}, {"id", r.id}, {"status", r.ok ? "ok" : "failed"}};
  if (!r.ok) {
    j["error"] = r.error;
    return;
  }
  j["iterations"] = r.iterations;
  j["ops_per_iteration"] = r.ops_per_iteration;
  j["warmup_batches"] = r.warmup_batches;
  j["warm"] = r.warm;
  if (!r.sample_iterations.empty()) j["sample_iterations"] = r.sample_iterations;
  j["sample_ns_per_op"] = r.sample_ns_per_op;
  if (r.data_accesses_per_op) j["data_accesses_per_op"] = *r.data_accesses_per_op;
  if (!r.counter_samples_per_op.empty()) j["counter_samples_per_op"] = r.counter_samples_per_op;
  if (r.cpu >= 0) j["cpu"] = r.cpu;
}
void from_json(const nlohmann::json& j, CellReport& r) {
  read_field(j, "id", r.id);
  r.ok = j.at("status").get<std::string>() == "ok";
  if (!r.ok) {
    r.error = j.value("error", "worker gave no reason");
    return;
  }
  read_field(j, "iterations", r.iterations);
  read_field(j, "ops_per_iteration", r.ops_per_iteration);
  read_field(j, "warmup_batches", r.warmup_batches);
  r.warm = j.value("warm", true);
  if (j.contains("sample_iterations")) read_field(j, "sample_iterations", r.sample_iterations);
  read_field(j, "sample_ns_per_op", r.sample_ns_per_op);
  if (j.contains("data_accesses_per_op")) r.data_accesses_per_op = j["data_accesses_per_op"].get<double>();
  if (j.contains("counter_samples_per_op")) j["counter_samples_per_op"].get_to(r.counter_samples_per_op);
  r.cpu = j.value("cpu", -1);
}

// One field a line, not clang-format's staircase:
// clang-format off
#define ABENCH_COUNT_FIELDS(X) \
  X(operations)                \
  X(requests)                  \
  X(frees)                     \
  X(requested_bytes)           \
  X(requests_min)              \
  X(requests_max)              \
  X(expected_requests_min)     \
  X(expected_requests_max)     \
  X(final_request_bytes_min)   \
  X(final_request_bytes_max)   \
  X(usable_bytes_min)          \
  X(usable_bytes_max)          \
  X(block_usable_bytes_min)    \
  X(block_usable_bytes_max)    \
  X(fragmentation_bytes_min)   \
  X(fragmentation_bytes_max)   \
  X(peak_live_bytes)           \
  X(peak_rss_bytes)            \
  X(minor_faults)              \
  X(live_tracking_overflow)    \
  X(builtin_buffer)
// clang-format on

void to_json(nlohmann::json& j, const CellCounts& c) {
  j = {{"type", "counts"}, {"id", c.id}, {"status", c.ok ? "ok" : "failed"}};
  if (!c.ok) {
    j["error"] = c.error;
    return;
  }
#define ABENCH_WRITE(field) j[#field] = c.field;
  ABENCH_COUNT_FIELDS(ABENCH_WRITE)
#undef ABENCH_WRITE
  j["allocator_resident_bytes"] =
      c.allocator_resident_available ? nlohmann::json(c.allocator_resident_bytes) : nlohmann::json(nullptr);
  j["allocator_resident_source"] = c.allocator_resident_source;
}

void from_json(const nlohmann::json& j, CellCounts& c) {
  read_field(j, "id", c.id);
  c.ok = j.at("status").get<std::string>() == "ok";
  if (!c.ok) {
    c.error = j.value("error", "counting worker gave no reason");
    return;
  }
#define ABENCH_READ(field) read_field(j, #field, c.field);
  ABENCH_COUNT_FIELDS(ABENCH_READ)
#undef ABENCH_READ
  c.allocator_resident_available = !j.at("allocator_resident_bytes").is_null();
  if (c.allocator_resident_available) read_field(j, "allocator_resident_bytes", c.allocator_resident_bytes);
  read_field(j, "allocator_resident_source", c.allocator_resident_source);
}

}  // namespace abench
