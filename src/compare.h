// abench compare's verdicts: each baseline cell against its candidate partner, with a
// confidence interval whose error includes the variation between processes, and counts
// old -> new. Plain data; compare_writers.cc serializes it (docs/statistics.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/bootstrap.h"
#include "src/results.h"

namespace abench {

struct CompareSettings {
  double min_effect = 0.01;   // a change smaller than this is never called significant
  double confidence = 0.95;
  int resamples = 2000;
  std::uint64_t seed = 0xabe7c4;  // fixed: the same data give the same verdict
};

enum class Verdict { slower, faster, unchanged, failed };
std::string_view name_of(Verdict v);

struct CompareRow {
  std::size_t pair = 0;
  CellSpec spec;
  int before_cell = 0, after_cell = 0;
  std::optional<double> before_ns, after_ns;
  std::optional<double> before_min, before_max, after_min, after_max;
  std::optional<RatioInterval> interval;  // change = ratio - 1
  Verdict verdict = Verdict::failed;
  std::string problem;  // why there is no verdict
  std::optional<CellCounts> before_counts, after_counts;
};

struct Comparison {
  CompareSettings settings;
  int processes = 0;
  std::vector<std::string> baseline_labels, candidate_labels;  // one per pair
  std::vector<std::string> pair_backends;
  std::vector<CompareRow> rows;
  std::map<std::string, double> geomean_change_by_backend;  // exp(mean log ratio) - 1
  std::optional<double> geomean_change;
  std::vector<std::string> warnings;
};

// results must come from make_compare_plan (variant 2p baseline, 2p+1 candidate).
Comparison compare_results(const RunResults& results, const CompareSettings& settings);

// The smallest processes per side for which the interval means what it says.
inline constexpr int kMinProcessesForConfidence = 5;

// "change" and "interval" (as after/before - 1) in j, or nulls and "problem" without them.
void put_change(nlohmann::json& j, const std::optional<RatioInterval>& interval, const std::string& problem);

std::string comparison_markdown(const Comparison& c);
std::string comparison_csv(const Comparison& c);
nlohmann::json comparison_json(const Comparison& c);

}  // namespace abench
