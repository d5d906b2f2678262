#include "src/store/changes_files.h"

#include <fmt/format.h>

#include "src/util/csv.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string kind_of(const SeriesChange& c) {
  if (c.by_abench) return "abench";
  return c.change > 0 ? "regression" : "improvement";
}

// What changed at a boundary of abench's: its timed loop, or the rest of it.
std::string abench_change(const SeriesChange& c) {
  if (!c.by_abench) return "";
  return c.loop_before == c.loop_after ? "same timed loop" : "timed loop changed";
}

std::string signed_change(double fraction) { return fmt::format("{:+.2f}%", fraction * 100); }

std::string alignment_text(const Series& s) {
  return s.requested == 1 ? fmt::format("{}", s.preferred) : fmt::format("{}:{}", s.requested, s.preferred);
}

}  // namespace

std::string changes_csv(const std::vector<SeriesChange>& changes) {
  std::string out = csv_row({"commit",
                             "previous_commit",
                             "change",
                             "kind",
                             "p_value",
                             "before",
                             "after",
                             "points_before",
                             "points_after",
                             "detectable_change",
                             "variant",
                             "backend",
                             "policy",
                             "workload",
                             "size",
                             "requested_align",
                             "preferred_align",
                             "live",
                             "measure",
                             "machine",
                             "timed_loop_before",
                             "timed_loop_after"});
  for (const SeriesChange& c : changes) {
    const Series& s = *c.series;
    out += csv_row({c.commit,
                    c.previous_commit,
                    fmt::format("{:.6f}", c.change),
                    kind_of(c),
                    c.by_abench ? "" : fmt::format("{:.3g}", c.p_value),
                    fmt::format("{:.6g}", c.before),
                    fmt::format("{:.6g}", c.after),
                    std::to_string(c.points_before),
                    std::to_string(c.points_after),
                    fmt::format("{:.6f}", c.detectable),
                    s.variant,
                    s.backend,
                    s.policy,
                    s.workload,
                    std::to_string(s.size),
                    std::to_string(s.requested),
                    std::to_string(s.preferred),
                    std::to_string(s.live),
                    s.measure,
                    s.machine,
                    c.loop_before,
                    c.loop_after});
  }
  return out;
}

std::string changes_markdown(const std::vector<SeriesChange>& changes, std::size_t series_count,
                             const ChangePointRule& rule) {
  std::size_t regressions = 0, improvements = 0, by_abench = 0;
  for (const SeriesChange& c : changes) (c.by_abench ? by_abench : c.change > 0 ? regressions : improvements)++;
  std::string out = fmt::format(
      "## abench history: {} regressions, {} improvements in {} series\n\n"
      "Change points by E-divisive means, each kept where Welch's t-test between its segments gives p < {:g} and "
      "the step is at least the cell's detectable change (docs/history.md).{}\n\n",
      regressions, improvements, series_count, rule.alpha,
      by_abench ? fmt::format(" {} boundaries where the measuring abench changed are listed apart: they are "
                              "abench's, not the library's.",
                              by_abench)
                : "");
  if (changes.empty()) return out + "No change points.\n";
  out +=
      "| kind | first commit | last before | change | before | after | points | variant | workload | size | align "
      "| live |\n|---|---|---|---:|---:|---:|---|---|---|---:|---:|---:|\n";
  for (const SeriesChange& c : changes) {
    const Series& s = *c.series;
    const std::string kind = c.by_abench ? fmt::format("abench ({})", abench_change(c)) : kind_of(c);
    out += fmt::format("| {} | {} | {} | {} | {:.4g} | {:.4g} | {} + {} | {} | {} | {} | {} | {} |\n", kind,
                       markdown_text(c.commit), markdown_text(c.previous_commit), signed_change(c.change), c.before,
                       c.after, c.points_before, c.points_after, markdown_text(s.variant), markdown_text(s.workload),
                       s.size, alignment_text(s), s.live);
  }
  return out;
}

nlohmann::json changes_json(const std::vector<SeriesChange>& changes, std::size_t series_count,
                            const ChangePointRule& rule) {
  nlohmann::json list = nlohmann::json::array();
  for (const SeriesChange& c : changes) {
    const Series& s = *c.series;
    list.push_back({{"kind", kind_of(c)},
                    {"commit", c.commit},
                    {"previous_commit", c.previous_commit},
                    {"change", c.change},
                    {"p_value", c.by_abench ? nlohmann::json(nullptr) : nlohmann::json(c.p_value)},
                    {"before", c.before},
                    {"after", c.after},
                    {"points_before", c.points_before},
                    {"points_after", c.points_after},
                    {"detectable_change", c.detectable},
                    {"timed_loop", c.by_abench ? nlohmann::json{{"before", c.loop_before}, {"after", c.loop_after}}
                                               : nlohmann::json(nullptr)},
                    {"cell",
                     {{"variant", s.variant},
                      {"backend", s.backend},
                      {"policy", s.policy},
                      {"workload", s.workload},
                      {"size", s.size},
                      {"requested_align", s.requested},
                      {"preferred_align", s.preferred},
                      {"live", s.live},
                      {"measure", s.measure},
                      {"machine", s.machine}}}});
  }
  return {
      {"schema", "abench.changes"},
      {"schema_version", 1},
      {"series", series_count},
      {"rule", {{"method", "e-divisive means, Welch's t-test"}, {"alpha", rule.alpha}, {"min_step", rule.min_step}}},
      {"changes", list}};
}

}  // namespace abench
