#include "src/export_formats.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/perf_counters.h"
#include "src/atomic_file.h"
#include "src/errors.h"

namespace abench {
namespace {

// A cell's name in other tools: backend/policy/workload/size/R:P/live (no spaces).
std::string name_of_cell(const RunResults& r, const CellRecord& record) {
  const CellSpec& c = record.cell.spec;
  return fmt::format("{}/{}/{}/{}/{}:{}/{}", r.plan.variants[record.cell.variant].backend, name_of(c.policy),
                     name_of(c.workload), c.size, c.alignment.requested, c.alignment.preferred, c.live);
}

double per_op(std::uint64_t total, std::uint64_t operations) {
  return operations ? static_cast<double>(total) / static_cast<double>(operations) : 0;
}

void add_counters(nlohmann::json& entry, const std::optional<CellCounts>& counts) {
  if (!counts) return;
  entry["requests"] = per_op(counts->requests, counts->operations);
  entry["requested_bytes"] = per_op(counts->requested_bytes, counts->operations);
  entry["usable_bytes_min"] = counts->usable_bytes_min;
  entry["peak_rss_bytes"] = counts->peak_rss_bytes;
}

}  // namespace

nlohmann::json to_google_benchmark(const RunResults& r) {
  const bool instructions = r.protocol.measure == Measure::instructions;
  const bool perf = is_perf(r.protocol.measure);
  const std::string leader = perf ? perf_events_of(r.protocol.measure).front().name : "";
  nlohmann::json allocators = nlohmann::json::object();
  for (std::size_t v = 0; v < r.plan.variants.size(); ++v)
    if (const WorkerHello* hello = hello_of_variant(r, v)) allocators[r.plan.variants[v].label()] = hello->allocator_version;
  nlohmann::json benchmarks = nlohmann::json::array();
  int family = 0;
  for (const CellRecord& record : r.cells) {
    const std::string name = name_of_cell(r, record);
    const CellSummary s = summarize(record, r.protocol.processes, r.protocol.measure);
    int repetitions = 0;
    for (const auto& p : record.processes) repetitions += static_cast<int>(p.sample_ns_per_op.size());
    int index = 0;
    for (const auto& p : record.processes)
      for (std::size_t i = 0; i < p.sample_ns_per_op.size(); ++i) {
        const double sample = p.sample_ns_per_op[i];
        // Perf modes: the batch's wall time is the time; the events are counters.
        const double time = perf ? p.counter_samples_per_op.at("ns").at(i) : sample;
        nlohmann::json entry{{"name", name},         {"family_index", family},   {"per_family_instance_index", 0},
                             {"run_name", name},     {"run_type", "iteration"},  {"repetitions", repetitions},
                             {"repetition_index", index++}, {"threads", 1},      {"iterations", p.iterations * record.cell.spec.live},
                             {"real_time", time},    {"cpu_time", time},         {"time_unit", "ns"}};
        if (instructions) entry["instructions_per_op"] = sample;
        if (perf) {
          entry[leader] = sample;
          for (const auto& [event, samples] : p.counter_samples_per_op)
            if (event != "ns") entry[event] = samples.at(i);
        }
        add_counters(entry, record.counts);
        benchmarks.push_back(std::move(entry));
      }
    if (s.ns_per_op) {
      nlohmann::json median{{"name", name + "_median"}, {"family_index", family}, {"per_family_instance_index", 0},
                            {"run_name", name},         {"run_type", "aggregate"}, {"repetitions", repetitions},
                            {"threads", 1},             {"aggregate_name", "median"}, {"aggregate_unit", "time"},
                            {"iterations", s.processes}, {"real_time", *s.ns_per_op}, {"cpu_time", *s.ns_per_op},
                            {"time_unit", "ns"}};
      if (perf) {
        median["real_time"] = median["cpu_time"] = s.counters_per_op.at("ns");
        median[leader] = *s.ns_per_op;
        for (const auto& [event, value] : s.counters_per_op)
          if (event != "ns") median[event] = value;
      }
      add_counters(median, record.counts);
      benchmarks.push_back(std::move(median));
    }
    ++family;
  }
  const auto& c = r.conditions;
  return {{"context",
           {{"date", r.started_at},
            {"host_name", c.value("hostname", "")},
            {"executable", "abench"},
            {"num_cpus", c.value("logical_cpus", 0)},
            {"mhz_per_cpu", 0},
            {"cpu_scaling_enabled", c.value("frequency_governor", nlohmann::json()).is_string() &&
                                        c["frequency_governor"] != "performance"},
            {"library_build_type", "release"},
            {"abench_measure", instructions ? "instructions per operation (real_time holds them)"
                              : perf ? "wall time; perf event counts per operation as counters"
                                     : "wall time"},
            {"abench_cpu_time", "not measured: equal to real_time, so that tools expecting it read the file"},
            {"abench_aggregate", "median of per-process medians"},
            {"abench_allocators", allocators},
            {"abench_conditions", c}}},
          {"benchmarks", benchmarks}};
}

nlohmann::json to_bencher(const RunResults& r) {
  const bool perf = is_perf(r.protocol.measure);
  const std::string measure = r.protocol.measure == Measure::instructions ? "instructions"
                              : perf ? perf_events_of(r.protocol.measure).front().name
                                     : "latency";
  nlohmann::json out = nlohmann::json::object();
  for (const CellRecord& record : r.cells) {
    const CellSummary s = summarize(record, r.protocol.processes, r.protocol.measure);
    if (!s.ns_per_op) continue;  // nothing measured: no figure
    nlohmann::json metrics{{measure, {{"value", *s.ns_per_op}, {"lower_value", *s.process_min_ns},
                                      {"upper_value", *s.process_max_ns}}}};
    for (const auto& [event, value] : s.counters_per_op) metrics[event == "ns" ? "latency" : event] = {{"value", value}};
    if (record.counts) {
      metrics["requests"] = {{"value", per_op(record.counts->requests, record.counts->operations)}};
      metrics["requested-bytes"] = {{"value", per_op(record.counts->requested_bytes, record.counts->operations)}};
      metrics["usable-bytes"] = {{"value", record.counts->usable_bytes_min},
                                 {"lower_value", record.counts->usable_bytes_min},
                                 {"upper_value", record.counts->usable_bytes_max}};
    }
    out[name_of_cell(r, record)] = std::move(metrics);
  }
  return out;
}

std::string to_go_benchmark(const RunResults& r) {
  const std::string unit = r.protocol.measure == Measure::instructions ? "instr/op"
                           : is_perf(r.protocol.measure) ? std::string(perf_events_of(r.protocol.measure).front().name) + "/op"
                                                         : "ns/op";
  const auto& c = r.conditions;
  std::string out = fmt::format("goos: linux\ngoarch: {}\npkg: abench\ncpu: {}\n",
                                c.value("architecture", "unknown"), c.value("cpu_model", nlohmann::json("unknown")).dump());
  out.erase(out.find("cpu: \"") + 5, 1);
  out.erase(out.rfind('"'), 1);
  for (std::size_t v = 0; v < r.plan.variants.size(); ++v)
    if (const WorkerHello* hello = hello_of_variant(r, v)) {
      // A configuration key is lower case without spaces.
      std::string key = r.plan.variants[v].label();
      for (char& ch : key) ch = std::isalnum(static_cast<unsigned char>(ch)) ? static_cast<char>(std::tolower(ch)) : '-';
      out += fmt::format("abench-allocator-{}: {}\n", key, hello->allocator_version);
    }
  for (const CellRecord& record : r.cells) {
    const std::string name = name_of_cell(r, record);
    for (const auto& p : record.processes)
      for (std::size_t i = 0; i < p.sample_ns_per_op.size(); ++i) {
        out += fmt::format("BenchmarkAbench/{} {} {:.3f} {}", name, p.iterations * record.cell.spec.live,
                           p.sample_ns_per_op[i], unit);
        for (const auto& [event, samples] : p.counter_samples_per_op)
          out += fmt::format(" {:.3f} {}/op", samples.at(i), event);
        if (record.counts)
          out += fmt::format(" {:.0f} B/op {:.3g} allocs/op", per_op(record.counts->requested_bytes, record.counts->operations),
                             per_op(record.counts->requests, record.counts->operations));
        out += "\n";
      }
  }
  return out;
}

void check_formats(const std::vector<std::string>& formats) {
  for (const auto& f : formats)
    if (std::find(known_formats().begin(), known_formats().end(), f) == known_formats().end())
      throw UsageError(fmt::format("option --format: unknown format '{}' (allowed: {})", f, fmt::join(known_formats(), ", ")));
}

void write_formats(const std::filesystem::path& dir, const RunResults& r, const std::vector<std::string>& formats) {
  check_formats(formats);
  for (const auto& f : formats) {
    if (f == "gbench") write_file_atomically(dir / "benchmark.json", to_google_benchmark(r).dump(2) + "\n");
    if (f == "bencher") write_file_atomically(dir / "bencher.json", to_bencher(r).dump(2) + "\n");
    if (f == "go") write_file_atomically(dir / "go-bench.txt", to_go_benchmark(r));
  }
}

}  // namespace abench
