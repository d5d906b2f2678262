#include "src/explain/explanation_codec.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "harness/instruction_counter.h"

namespace abench {
namespace {

std::string key(std::string_view figure, const char* side) { return fmt::format("{}_{}", figure, side); }

std::optional<double> change_of(const PairExplanation& e, std::string_view figure) {
  if (!e.before || !e.after) return std::nullopt;
  return relative_change(e.before->at(figure), e.after->at(figure));
}

double repeatability_of(const PairExplanation& e) {
  return std::max(e.before ? e.before->repeatability : 0.0, e.after ? e.after->repeatability : 0.0);
}

std::optional<WorkFigures> side_at(const JsonField& row, const char* side) {
  if (!row.has(key("instructions", side).c_str())) return std::nullopt;
  WorkFigures w;
  for (std::string_view figure : kWorkFigureNames)
    w.per_op[std::string(figure)] = row.at(key(figure, side).c_str()).figure();
  return w;
}

}  // namespace

std::vector<std::string> explanation_csv_header() {
  std::vector<std::string> out;
  for (std::string_view figure : kWorkFigureNames)
    for (const char* column : {"before", "after", "change"}) out.push_back(key(figure, column));
  out.insert(out.end(), {"work_repeatability", "reading", "work_unavailable"});
  return out;
}

std::vector<std::string> explanation_csv_cells(const PairExplanation& e) {
  std::vector<std::string> out;
  const auto side = [](const std::optional<WorkFigures>& w, std::string_view figure) {
    return w ? fmt::format("{:.3f}", w->at(figure)) : std::string();
  };
  for (std::string_view figure : kWorkFigureNames) {
    const auto change = change_of(e, figure);
    out.insert(out.end(), {side(e.before, figure), side(e.after, figure),
                           change ? fmt::format("{:.5f}", *change) : std::string()});
  }
  const bool both = e.before && e.after;
  out.insert(out.end(), {both ? fmt::format("{:.5f}", repeatability_of(e)) : std::string(), e.reading, e.unavailable});
  return out;
}

void put_explanation(nlohmann::json& row, const PairExplanation& e) {
  const auto figure_or_null = [](const std::optional<WorkFigures>& w, std::string_view figure) {
    return w ? nlohmann::json(w->at(figure)) : nlohmann::json(nullptr);
  };
  for (std::string_view figure : kWorkFigureNames) {
    row[key(figure, "before")] = figure_or_null(e.before, figure);
    row[key(figure, "after")] = figure_or_null(e.after, figure);
    const auto change = change_of(e, figure);
    row[key(figure, "change")] = change ? nlohmann::json(*change) : nlohmann::json(nullptr);
  }
  row["work_repeatability"] = e.before && e.after ? nlohmann::json(repeatability_of(e)) : nlohmann::json(nullptr);
  row["reading"] = e.before && e.after ? nlohmann::json(e.reading) : nlohmann::json(nullptr);
  row["work_unavailable"] = e.unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.unavailable);
}

PairExplanation explanation_at(const JsonField& row, const TimeChange& time) {
  PairExplanation e;
  e.before = side_at(row, "before");
  e.after = side_at(row, "after");
  if (row.has("work_unavailable")) e.unavailable = row.at("work_unavailable").text();
  if (!e.before || !e.after) {
    if (e.unavailable.empty()) row.at("work_unavailable").fail("must say why a side has no instruction counts");
    return e;
  }
  // The repeatability is the file's word (it is not derivable from the row); it can only
  // raise the bar at which instructions moved.
  const double repeatability = row.at("work_repeatability").figure();
  e.before->repeatability = e.after->repeatability = repeatability;
  for (std::string_view figure : kWorkFigureNames) {
    const JsonField said = row.at(key(figure, "change").c_str());
    const auto derived = change_of(e, figure);
    if (said.json().is_null() != !derived ||
        (derived && (!said.json().is_number() ||
                     std::abs(said.json().get<double>() - *derived) > 1e-9 * std::max(1.0, std::abs(*derived)))))
      said.fail(fmt::format("is {}, but the row's figures make it {}", said.shown(),
                            derived ? fmt::format("{:g}", *derived) : std::string("null")));
  }
  e.reading = reading_of(time, *e.before, *e.after);
  if (const std::string said = row.at("reading").text(); said != e.reading)
    row.at("reading").fail(
        fmt::format("is '{}', but the rule makes the row's figures '{}'", printable(said.substr(0, 80)), e.reading));
  return e;
}

nlohmann::json explain_method_json() {
  return {{"tool", "valgrind --tool=callgrind --collect-atstart=no --cache-sim=yes --branch-sim=yes --dump-instr=yes"},
          {"processes_per_variant", kExplainProcesses},
          {"operations_per_cell", kInstructionModeOperations},
          {"figures", kWorkFigureNames},
          {"reading_rule", reading_rule_text()},
          {"directory", kExplainDirectory}};
}

}  // namespace abench
