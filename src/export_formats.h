// The ecosystem's formats, written beside results.json when --format asks for them, so
// other tools read abench results as they are:
//   gbench   benchmark.json in Google Benchmark's JSON schema (compare.py,
//            github-action-benchmark): one "iteration" entry per sample, the median of
//            process medians as a "median" aggregate, counts as counters, allocators and
//            versions in "context"
//   bencher  bencher.json in the Bencher Metric Format: per cell, latency (or
//            instructions) with the process range as lower and upper values, and counts
//   go       go-bench.txt in Go's benchmark text format (benchstat): one line per sample
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/results.h"

namespace abench {

inline const std::vector<std::string>& known_formats() {
  static const std::vector<std::string> formats{"gbench", "bencher", "go"};
  return formats;
}

nlohmann::json to_google_benchmark(const RunResults& results);
nlohmann::json to_bencher(const RunResults& results);
std::string to_go_benchmark(const RunResults& results);

// Writes every format named; throws UsageError for an unknown one.
void write_formats(const std::filesystem::path& dir, const RunResults& results, const std::vector<std::string>& formats);
void check_formats(const std::vector<std::string>& formats);

}  // namespace abench
