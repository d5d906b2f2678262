// go-bench.txt in Go's benchmark text format, read by benchstat: configuration lines, then
// one result line per worker process (its median sample; the -samples variant: per sample).
// Names are key=value parts, so `benchstat -col /variant` puts the two sides of a compare
// in columns and `-row /size@num` sorts sizes as numbers.
#include <cctype>

#include <fmt/format.h>

#include "src/exports/export_names.h"
#include "src/exports/format_registry.h"
#include "src/stats/statistics.h"

namespace abench {
namespace {

// A configuration key: lower case, no spaces (Go's format).
std::string config_key(std::string_view text) {
  std::string key;
  for (char c : text) key += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  return key;
}

std::string one_line(std::string text) {
  for (char& c : text)
    if (c == '\n' || c == '\r') c = ' ';
  return text;
}

std::string render_go_text(const RunResults& r, bool every_sample) {
  const nlohmann::json& c = r.conditions.facts;
  const nlohmann::json context = export_context(r);
  std::string out =
      fmt::format("goos: linux\ngoarch: {}\npkg: abench\ncpu: {}\n", go_arch(r.conditions.architecture),
                  c.value("cpu_model", nlohmann::json()).is_string() ? c["cpu_model"].get<std::string>() : "unknown");
  for (const char* key : {"measure", "unit", "samples_per_process", "processes", "min_batch_ms", "process_mode",
                          "interleave_batches", "touch"}) {
    const nlohmann::json& value = context.at(key);
    out += fmt::format("abench-{}: {}\n", config_key(key), value.is_string() ? value.get<std::string>() : value.dump());
  }
  out += fmt::format("abench-results: {}\n",
                     every_sample ? "one line per timed sample" : "one line per worker process, its median sample");
  for (const auto& v : context.at("variants")) {
    std::string what = v.at("label").get<std::string>();
    if (v.contains("side")) what += "; " + v.at("side").get<std::string>();
    if (v.contains("allocator_version"))
      what += fmt::format("; {}, malloc from {}; entry points {}", v.at("allocator_version").get<std::string>(),
                          v.at("malloc_object").get<std::string>(), v.at("entry_set").get<std::string>());
    out += fmt::format("abench-variant-{}: {}\n", config_key(v.at("name_part").get<std::string>()), one_line(what));
  }
  const std::string unit = unit_per_op(r.protocol.measure);
  const std::vector<std::string> variants = variant_name_parts(r);
  for (const CellRecord& record : r.cells) {
    const std::string name = key_value_name(identity_of(r, record, variants));
    const CellSummary& s = record.summary;
    if (const std::string problem = cell_problem(s); !problem.empty()) {
      out += fmt::format("--- {}: {}\n    {}\n", s.status == CellStatus::refused ? "SKIP" : "FAIL", name,
                         one_line(problem));
      continue;
    }
    for (const ProcessMeasurement& p : record.processes) {
      const auto line = [&](auto figure_of) {
        std::string text = fmt::format("{} {} {:.3f} {}", name, p.iterations * record.cell.spec.live,
                                       figure_of(p.sample_ns_per_op), unit);
        for (const auto& [event, samples] : p.counter_samples_per_op)
          text += fmt::format(" {:.3f} {}/op", figure_of(samples), event);
        if (record.counts)
          text += fmt::format(" {:.0f} B/op {:.3g} allocs/op",
                              per_op(record.counts->requested_bytes, record.counts->operations),
                              per_op(record.counts->requests, record.counts->operations));
        out += text + "\n";
      };
      if (every_sample) {
        for (std::size_t i = 0; i < p.sample_ns_per_op.size(); ++i)
          line([i](const std::vector<double>& samples) { return samples.at(i); });
      } else {
        line([](const std::vector<double>& samples) { return median(samples); });
      }
    }
  }
  return out;
}

}  // namespace

std::string go_benchmark_text(const RunResults& r) { return render_go_text(r, false); }
std::string go_benchmark_samples_text(const RunResults& r) { return render_go_text(r, true); }

}  // namespace abench
