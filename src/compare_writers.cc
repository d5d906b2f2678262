// compare.md (ready to paste into a pull request), compare.csv and compare.json.
#include <fmt/format.h>

#include "src/compare.h"

namespace abench {
namespace {

std::string ns(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

std::string percent(double change) { return fmt::format("{:+.1f}%", change * 100); }

std::string range(const std::optional<double>& lo, const std::optional<double>& hi) {
  return lo ? fmt::format("{:.2f}-{:.2f}", *lo, *hi) : "-";
}

std::string per_buffer(std::uint64_t total, std::uint64_t buffers) {
  if (buffers == 0) return "0";
  if (total % buffers == 0) return std::to_string(total / buffers);
  return fmt::format("{:.2f}", static_cast<double>(total) / static_cast<double>(buffers));
}

std::string span(std::uint64_t lo, std::uint64_t hi) {
  return lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
}

// "old → new", or the one value when both sides agree.
template <class F>
std::string old_new(const CompareRow& row, F field) {
  if (!row.before_counts || !row.after_counts) return "-";
  const std::string before = field(*row.before_counts), after = field(*row.after_counts);
  return before == after ? before : before + " → " + after;
}

std::string requested(const CellCounts& c) { return per_buffer(c.requested_bytes, c.operations); }
std::string usable(const CellCounts& c) { return span(c.usable_bytes_min, c.usable_bytes_max); }
std::string requests(const CellCounts& c) { return per_buffer(c.requests, c.operations); }

std::string change_text(const CompareRow& row) {
  if (!row.interval) return "-";
  return percent(row.interval->ratio - 1);
}

std::string interval_text(const CompareRow& row) {
  if (!row.interval) return "-";
  return fmt::format("[{}, {}]", percent(row.interval->low - 1), percent(row.interval->high - 1));
}

std::string verdict_text(const CompareRow& row) {
  if (row.verdict == Verdict::failed) return "failed: " + row.problem.substr(0, 80);
  return std::string(name_of(row.verdict));
}

}  // namespace

std::string comparison_markdown(const Comparison& c) {
  std::string out;
  for (std::size_t p = 0; p < c.baseline_labels.size(); ++p)
    out += fmt::format("**{}** (before) vs **{}** (after)\n", c.baseline_labels[p], c.candidate_labels[p]);
  out += fmt::format(
      "\nMedian of {} process medians a side; change = after/before − 1 (positive: slower); "
      "{:.0f}% interval from a hierarchical bootstrap over processes and samples; `~`: not "
      "significant (interval includes 0 or |change| < {:.1f}%). Counts per buffer.\n\n",
      c.processes, c.settings.confidence * 100, c.settings.min_effect * 100);
  out += "| backend | workload | size | align | live | before ns | after ns | change | interval | "
         "before range | after range | requested bytes | usable bytes | requests | verdict |\n";
  out += "|---|---|--:|--:|--:|--:|--:|--:|---|---|---|---|---|---|---|\n";
  for (const CompareRow& row : c.rows)
    out += fmt::format("| {} | {} | {} | {}:{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                       c.pair_backends[row.pair], name_of(row.spec.workload), row.spec.size,
                       row.spec.alignment.requested, row.spec.alignment.preferred, row.spec.live,
                       ns(row.before_ns), ns(row.after_ns), change_text(row), interval_text(row),
                       range(row.before_min, row.before_max), range(row.after_min, row.after_max),
                       old_new(row, requested), old_new(row, usable), old_new(row, requests),
                       verdict_text(row));
  out += "\n";
  for (const auto& [backend, change] : c.geomean_change_by_backend)
    out += fmt::format("Geometric-mean change, {}: {}\n", backend, percent(change));
  if (c.geomean_change) out += fmt::format("Geometric-mean change, overall: {}\n", percent(*c.geomean_change));
  for (const auto& w : c.warnings) out += "\n> **Note:** " + w + "\n";
  return out;
}

std::string comparison_csv(const Comparison& c) {
  std::string out =
      "baseline,candidate,workload,size,requested_align,preferred_align,live,before_ns,after_ns,"
      "change,interval_low,interval_high,before_min_ns,before_max_ns,after_min_ns,after_max_ns,"
      "requested_bytes_before,requested_bytes_after,usable_bytes_before,usable_bytes_after,"
      "requests_before,requests_after,verdict\n";
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : std::string(); };
  auto counts = [](const std::optional<CellCounts>& k, auto f) { return k ? f(*k) : std::string(); };
  for (const CompareRow& row : c.rows)
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
                       c.baseline_labels[row.pair], c.candidate_labels[row.pair], name_of(row.spec.workload),
                       row.spec.size, row.spec.alignment.requested, row.spec.alignment.preferred,
                       row.spec.live, opt(row.before_ns), opt(row.after_ns),
                       row.interval ? fmt::format("{:.5f}", row.interval->ratio - 1) : "",
                       row.interval ? fmt::format("{:.5f}", row.interval->low - 1) : "",
                       row.interval ? fmt::format("{:.5f}", row.interval->high - 1) : "",
                       opt(row.before_min), opt(row.before_max), opt(row.after_min), opt(row.after_max),
                       counts(row.before_counts, requested), counts(row.after_counts, requested),
                       counts(row.before_counts, usable), counts(row.after_counts, usable),
                       counts(row.before_counts, requests), counts(row.after_counts, requests),
                       name_of(row.verdict));
  return out;
}

void put_change(nlohmann::json& j, const std::optional<RatioInterval>& interval, const std::string& problem) {
  if (interval) {
    j["change"] = interval->ratio - 1;
    j["interval"] = {interval->low - 1, interval->high - 1};
  } else {
    j["change"] = nullptr;
    j["interval"] = nullptr;
    j["problem"] = problem;
  }
}

nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json rows = nlohmann::json::array();
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
  for (const CompareRow& row : c.rows) {
    nlohmann::json j{{"pair", row.pair},
                     {"baseline", c.baseline_labels[row.pair]},
                     {"candidate", c.candidate_labels[row.pair]},
                     {"workload", name_of(row.spec.workload)},
                     {"size", row.spec.size},
                     {"requested_align", row.spec.alignment.requested},
                     {"preferred_align", row.spec.alignment.preferred},
                     {"live", row.spec.live},
                     {"before_cell", row.before_cell},
                     {"after_cell", row.after_cell},
                     {"before_ns", opt(row.before_ns)},
                     {"after_ns", opt(row.after_ns)},
                     {"before_range_ns", {opt(row.before_min), opt(row.before_max)}},
                     {"after_range_ns", {opt(row.after_min), opt(row.after_max)}},
                     {"verdict", name_of(row.verdict)}};
    put_change(j, row.interval, row.problem);
    j["counts_before"] = row.before_counts ? nlohmann::json(*row.before_counts) : nlohmann::json(nullptr);
    j["counts_after"] = row.after_counts ? nlohmann::json(*row.after_counts) : nlohmann::json(nullptr);
    rows.push_back(std::move(j));
  }
  nlohmann::json geomeans = nlohmann::json::object();
  for (const auto& [backend, change] : c.geomean_change_by_backend) geomeans[backend] = change;
  return {{"schema", "abench.compare"},
          {"schema_version", 1},
          {"method", {{"statistic", "per side: median of per-process medians; change: median over rounds of each round's ratio"},
                      {"interval", "hierarchical bootstrap of the ratio, paired by round: the median over rounds of each "
                                   "round's ratio of process medians; resamples rounds, then samples within each "
                                   "process (docs/statistics.md)"},
                      {"confidence", c.settings.confidence},
                      {"resamples", c.settings.resamples},
                      {"seed", c.settings.seed},
                      {"min_effect", c.settings.min_effect}}},
          {"processes_per_side", c.processes},
          {"baselines", c.baseline_labels},
          {"candidates", c.candidate_labels},
          {"rows", rows},
          {"geomean_change_by_backend", geomeans},
          {"geomean_change", c.geomean_change ? nlohmann::json(*c.geomean_change) : nlohmann::json(nullptr)},
          {"warnings", c.warnings}};
}

}  // namespace abench
