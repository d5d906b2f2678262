#include "src/store/series_export.h"

#include <map>

#include <fmt/format.h>

#include "harness/protocol.h"
#include "src/results/results.h"
#include "src/util/csv.h"

namespace abench {
namespace {

std::string file_safe(const std::string& text) {
  std::string out;
  for (char c : text) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out.substr(0, 100);
}

}  // namespace

std::string series_csv(const Series& s) {
  Measure measure = Measure::time;
  measure_named(s.measure, measure);
  std::string out = csv_row({"time", "commit", metric_names(measure).per_op, "best"});
  for (const SeriesPoint& p : s.points)
    out += csv_row({p.recorded_at, p.commit, fmt::format("{:.17g}", p.figure),
                    p.best ? fmt::format("{:.17g}", *p.best) : std::string()});
  return out;
}

std::vector<std::string> series_file_names(const std::vector<Series>& all) {
  std::vector<std::string> names;
  std::map<std::string, int> used;
  for (const Series& s : all) {
    const std::string base =
        file_safe(fmt::format("{}-{}-{}-{}-{}-{}x{}-{}-{}", s.machine.substr(0, 8), s.variant, s.policy, s.workload,
                              s.size, s.requested, s.preferred, s.live, s.measure));
    const int n = used[base]++;
    names.push_back(n == 0 ? base + ".csv" : fmt::format("{}-{}.csv", base, n + 1));
  }
  return names;
}

}  // namespace abench
