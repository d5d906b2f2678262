#include "src/exports/format_registry.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/util/atomic_file.h"
#include "src/util/errors.h"

namespace abench {
namespace {

std::string times_only(Measure measure) {
  if (row_of(measure).holds_times) return "";
  return "it holds times (Google Benchmark's time_unit is ns, us, ms or s) and --measure instructions times "
         "nothing: use go, bencher or action, which name their unit";
}

std::string names() {
  std::string out;
  for (const ExportFormat& f : export_formats()) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

}  // namespace

const std::vector<ExportFormat>& export_formats() {
  static const std::vector<ExportFormat> formats{
      {"gbench", "benchmark.json", "Google Benchmark's compare.py, github-action-benchmark (tool googlecpp)",
       google_benchmark_json, times_only},
      {"gbench-samples", "benchmark-samples.json", "the same, every sample a repetition", google_benchmark_samples_json,
       times_only},
      {"go", "go-bench.txt", "benchstat", go_benchmark_text},
      {"go-samples", "go-bench-samples.txt", "benchstat, every sample a line", go_benchmark_samples_text},
      {"bencher", "bencher.json", "Bencher (Bencher Metric Format)", bencher_json},
      {"action", "action-benchmark.json", "github-action-benchmark (tool customSmallerIsBetter)",
       action_benchmark_json},
  };
  return formats;
}

std::string formats_help() {
  std::string out = "Also write, comma-separated:";
  for (const ExportFormat& f : export_formats()) out += fmt::format(" {} ({}, for {});", f.name, f.file, f.reader);
  out.back() = '.';
  return out;
}

void check_formats(const std::vector<std::string>& formats, Measure measure) {
  for (const std::string& name : formats) {
    if (name.empty())
      throw UsageError(fmt::format(
          "option --format: an empty item in the list (allowed: {}; write e.g. --format go,bencher)", names()));
    const auto f = std::find_if(export_formats().begin(), export_formats().end(),
                                [&](const ExportFormat& e) { return e.name == name; });
    if (f == export_formats().end())
      throw UsageError(fmt::format("option --format: unknown format '{}' (allowed: {})", name, names()));
    if (f->cannot_hold != nullptr)
      if (const std::string why = f->cannot_hold(measure); !why.empty())
        throw UsageError(fmt::format("option --format {}: {}", name, why));
  }
}

void write_formats(const std::filesystem::path& dir, const RunResults& results,
                   const std::vector<std::string>& formats) {
  check_formats(formats, results.protocol.measure);
  for (const ExportFormat& f : export_formats())
    if (std::find(formats.begin(), formats.end(), f.name) != formats.end())
      write_file_atomically(dir / f.file, f.render(results));
}

}  // namespace abench
