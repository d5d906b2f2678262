#include "src/store/history_series.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {
namespace {

template <class T>
bool wanted(const std::vector<T>& allowed, const T& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

std::string text(const SqlValue& v) { return std::holds_alternative<std::string>(v) ? std::get<std::string>(v) : ""; }
std::int64_t whole(const SqlValue& v) {
  return std::holds_alternative<std::int64_t>(v) ? std::get<std::int64_t>(v) : 0;
}
double number(const SqlValue& v) {
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return static_cast<double>(whole(v));
}

// The variant's timed loop in a run's stored variants (as results.json writes them); "" where the
// run predates them. A store is shared by many runners: anything but a loop's name is kept as
// "invalid", so it still cuts the series and never reaches changes.csv as written.
std::string timed_loop_of(const nlohmann::json& variants, const std::string& label) {
  if (!variants.is_array()) return "";
  for (const auto& v : variants) {
    if (!v.is_object() || v.value("label", nlohmann::json()) != label || !v.contains("timed_loop")) continue;
    const nlohmann::json& loop = v["timed_loop"];
    return loop.is_string() && is_timed_loop_or_empty(loop.get<std::string>()) ? loop.get<std::string>() : "invalid";
  }
  return "";
}

}  // namespace

bool same_measurer(const SeriesPoint& a, const SeriesPoint& b) {
  return a.abench_revision == b.abench_revision && a.timed_loop == b.timed_loop;
}

std::vector<Series> read_series(HistoryStore& store, const SeriesFilter& filter) {
  const auto rows = store.connection().run(
      "SELECT r.machine, r.measure, p.variant, p.backend, p.policy, p.workload, p.size, p.requested, p.preferred, "
      "p.live, r.commit_rev, r.recorded_at, r.abench_revision, p.figure, p.process_figures, p.best, r.run_key, "
      "r.variants "
      "FROM points p JOIN runs r ON r.run_key = p.run_key ORDER BY r.recorded_at, r.run_key",
      {});
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string, std::int64_t,
                         std::int64_t, std::int64_t, std::int64_t>;
  std::map<Key, Series> by_key;
  std::map<std::string, nlohmann::json> run_variants;  // by run key, each parsed once
  for (const SqlRow& row : rows) {
    Series s{text(row[0]),
             text(row[1]),
             text(row[2]),
             text(row[3]),
             text(row[4]),
             text(row[5]),
             whole(row[6]),
             whole(row[7]),
             whole(row[8]),
             whole(row[9]),
             {}};
    if (!wanted(filter.variants, s.variant) || !wanted(filter.backends, s.backend) ||
        !wanted(filter.workloads, s.workload) || !wanted(filter.sizes, s.size) || !wanted(filter.lives, s.live))
      continue;
    SeriesPoint point{text(row[16]), text(row[10]), text(row[11]), text(row[12]), "", number(row[13]), 0, 0,
                      std::nullopt};
    if (!std::holds_alternative<std::nullptr_t>(row[15])) point.best = number(row[15]);
    point.timed_loop = timed_loop_of(
        run_variants.try_emplace(point.run, nlohmann::json::parse(text(row[17]), nullptr, false)).first->second,
        s.variant);
    // Each process's figure, as stored by abench; a store edited by hand gives the figure alone.
    const nlohmann::json processes = nlohmann::json::parse(text(row[14]), nullptr, false);
    point.process_low = point.process_high = point.figure;
    if (processes.is_array())
      for (const auto& p : processes)
        if (p.is_number()) {
          point.process_low = std::min(point.process_low, p.get<double>());
          point.process_high = std::max(point.process_high, p.get<double>());
        }
    const Key key{s.machine,  s.measure, s.variant,   s.backend,   s.policy,
                  s.workload, s.size,    s.requested, s.preferred, s.live};
    auto [at, added] = by_key.try_emplace(key, std::move(s));
    at->second.points.push_back(std::move(point));
  }
  std::vector<Series> all;
  for (auto& [key, series] : by_key) all.push_back(std::move(series));
  return all;
}

}  // namespace abench
