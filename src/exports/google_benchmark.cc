// benchmark.json in Google Benchmark's JSON schema, read by compare.py and by
// github-action-benchmark's googlecpp tool. A repetition is one worker process, reduced to
// its median sample, as abench's own verdicts count them; the -samples variant lists every
// sample instead (samples of one process are not independent: compare.py's U test on them
// finds "significance" in one process's spell).
#include <fmt/format.h>

#include "harness/perf_counters.h"
#include "src/exports/export_names.h"
#include "src/exports/format_registry.h"
#include "src/stats/statistics.h"

namespace abench {
namespace {

void add_counts(nlohmann::json& entry, const std::optional<CellCounts>& counts) {
  if (!counts) return;
  entry["requests"] = per_op(counts->requests, counts->operations);
  entry["requested_bytes"] = per_op(counts->requested_bytes, counts->operations);
  entry["usable_bytes_min"] = counts->usable_bytes_min;
  entry["peak_rss_bytes"] = counts->peak_rss_bytes;
}

// One repetition's figures: wall time (the batch's, in the perf modes) and the events.
struct Repetition {
  double time_ns;
  std::map<std::string, double> counters;
  std::uint64_t operations;
};

std::vector<Repetition> repetitions_of(const RunResults& r, const CellRecord& record, bool every_sample) {
  const bool perf = row_of(r.protocol.measure).perf_events;
  const std::string leader = perf ? perf_events_of(r.protocol.measure).front().name : "";
  std::vector<Repetition> out;
  for (const ProcessMeasurement& p : record.processes) {
    const std::uint64_t operations = p.iterations * record.cell.spec.live;
    const auto add = [&](auto figure_of) {
      Repetition rep{figure_of(p.sample_ns_per_op), {}, operations};
      if (perf) {
        rep.counters[leader] = rep.time_ns;
        rep.time_ns = figure_of(p.counter_samples_per_op.at("ns"));
        for (const auto& [event, samples] : p.counter_samples_per_op)
          if (event != "ns") rep.counters[event] = figure_of(samples);
      }
      out.push_back(std::move(rep));
    };
    if (every_sample) {
      for (std::size_t i = 0; i < p.sample_ns_per_op.size(); ++i)
        add([i](const std::vector<double>& samples) { return samples.at(i); });
    } else {
      add([](const std::vector<double>& samples) { return median(samples); });
    }
  }
  return out;
}

nlohmann::json base_entry(const std::string& name, int family) {
  return {{"name", name},     {"family_index", family}, {"per_family_instance_index", 0},
          {"run_name", name}, {"threads", 1},           {"time_unit", "ns"}};
}

std::string render_google_json(const RunResults& r, bool every_sample) {
  const std::vector<std::string> variants = variant_name_parts(r);
  nlohmann::json benchmarks = nlohmann::json::array();
  int family = 0;
  for (const CellRecord& record : r.cells) {
    const std::string name = arg_value_name(identity_of(r, record, variants));
    const CellSummary& s = record.summary;
    const std::vector<Repetition> reps = repetitions_of(r, record, every_sample);
    if (const std::string problem = cell_problem(s); !problem.empty() || reps.empty()) {
      // No times at all: a reader that compares times (compare.py) skips it, none reads a 0 as a time.
      nlohmann::json entry = base_entry(name, family++);
      entry.erase("time_unit");
      entry.update({{"run_type", "iteration"},
                    {"repetitions", 1},
                    {"repetition_index", 0},
                    {"error_occurred", true},
                    {"error_message", problem.empty() ? "no measurement" : problem}});
      benchmarks.push_back(std::move(entry));
      continue;
    }
    std::vector<double> times;
    for (std::size_t i = 0; i < reps.size(); ++i) {
      nlohmann::json entry = base_entry(name, family);
      entry.update({{"run_type", "iteration"},
                    {"repetitions", reps.size()},
                    {"repetition_index", i},
                    {"iterations", reps[i].operations},
                    {"real_time", reps[i].time_ns},
                    {"cpu_time", reps[i].time_ns}});
      for (const auto& [event, value] : reps[i].counters) entry[event] = value;
      add_counts(entry, record.counts);
      times.push_back(reps[i].time_ns);
      benchmarks.push_back(std::move(entry));
    }
    // What it says: the median of the repetitions above.
    nlohmann::json aggregate = base_entry(name + "_median", family);
    aggregate["run_name"] = name;
    aggregate.update({{"run_type", "aggregate"},
                      {"repetitions", reps.size()},
                      {"aggregate_name", "median"},
                      {"aggregate_unit", "time"},
                      {"iterations", reps.front().operations},
                      {"real_time", median(times)},
                      {"cpu_time", median(times)}});
    for (const auto& [event, value] : reps.front().counters) {
      std::vector<double> values;
      for (const Repetition& rep : reps) values.push_back(rep.counters.at(event));
      aggregate[event] = median(values);
    }
    add_counts(aggregate, record.counts);
    benchmarks.push_back(std::move(aggregate));
    ++family;
  }
  const nlohmann::json& c = r.conditions.facts;
  nlohmann::json allocators = nlohmann::json::object();
  for (std::size_t v = 0; v < r.plan.variants.size(); ++v)
    if (const WorkerHello* hello = hello_of_variant(r, v))
      allocators[r.plan.variants[v].label()] = hello->allocator_version;
  const nlohmann::json out{
      {"context",
       {{"date", r.started_at},
        {"host_name", c.value("hostname", "")},
        {"executable", "abench"},
        {"num_cpus", c.value("logical_cpus", 0)},
        {"mhz_per_cpu", 0},
        {"cpu_scaling_enabled",
         c.value("frequency_governor", nlohmann::json()).is_string() && c["frequency_governor"] != "performance"},
        {"library_build_type", "release"},
        {"abench_repetitions", every_sample ? "one per timed sample (samples of one process are not independent)"
                                            : "one per worker process: its median sample"},
        {"abench_time", row_of(r.protocol.measure).perf_events
                            ? "each batch's wall time; the perf events per operation as counters"
                            : "wall time per operation"},
        {"abench_cpu_time", "not measured: equal to real_time, so that tools expecting it read the file"},
        {"abench_allocators", allocators},
        {"abench", export_context(r)},
        {"abench_conditions", conditions_to_json(r.conditions)}}},
      {"benchmarks", benchmarks}};
  return out.dump(2) + "\n";
}

}  // namespace

std::string google_benchmark_json(const RunResults& r) { return render_google_json(r, false); }
std::string google_benchmark_samples_json(const RunResults& r) { return render_google_json(r, true); }

}  // namespace abench
