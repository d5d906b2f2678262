#include "src/verdict/compare_file.h"
#include "src/verdict/gate_file.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

constexpr GateOutcome kOutcomes[] = {GateOutcome::pass,    GateOutcome::regression, GateOutcome::improvement,
                                     GateOutcome::unclear, GateOutcome::undecided,  GateOutcome::failed};

// A finite number from low to high, or a UsageError naming the cell and the field.
double number_in(const nlohmann::json& c, const char* key, double low, double high, const std::string& where) {
  const nlohmann::json& v = c.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < low || v.get<double>() > high)
    throw UsageError(fmt::format("{}: field '{}' is {} (allowed: a number from {:g} to {:g})", where, key,
                                 printable(v.dump().substr(0, 40)), low, high));
  return v.get<double>();
}

double number_in(const nlohmann::json& pair, std::size_t index, const std::string& where) {
  const nlohmann::json& v = pair.at(index);
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw UsageError(fmt::format("{}: field 'interval[{}]' is {}: not a finite number", where, index,
                                 printable(v.dump().substr(0, 40))));
  return v.get<double>();
}

HistoryBasis history_basis(const nlohmann::json& h, const std::string& where) {
  if (!h.is_object()) throw UsageError(where + " is not an object");
  HistoryBasis basis;
  basis.points = static_cast<int>(number_in(h, "points", 1, 1e9, where));
  basis.first_commit = h.at("first_commit").get<std::string>();
  basis.last_commit = h.at("last_commit").get<std::string>();
  if (!h.at("change_commit").is_null()) basis.change_commit = h.at("change_commit").get<std::string>();
  basis.segment_figure = number_in(h, "segment_figure", 0, 1e300, where);
  basis.figure = number_in(h, "figure", 0, 1e300, where);
  basis.runs = static_cast<int>(number_in(h, "runs", 1, 2, where));
  return basis;
}

}  // namespace

nlohmann::json gate_json(const GateVerdict& v) {
  nlohmann::json cells = nlohmann::json::array();
  for (const GateCell& c : v.cells) {
    nlohmann::json j{{"cell", c.key},
                     {"metric", c.metric},
                     {"threshold", c.threshold},
                     {"noise_floor", c.noise_floor},
                     {"applied_threshold", c.applied},
                     {"result", name_of(c.outcome)},
                     {"pass", c.outcome == GateOutcome::pass || c.outcome == GateOutcome::improvement}};
    put_change(j, c.judgement, c.problem);
    if (c.judgement) j["call"] = name_of(c.judgement->call);
    if (c.history)
      j["history"] = {{"points", c.history->points},
                      {"first_commit", c.history->first_commit},
                      {"last_commit", c.history->last_commit},
                      {"change_commit", c.history->change_commit.empty() ? nlohmann::json(nullptr)
                                                                         : nlohmann::json(c.history->change_commit)},
                      {"segment_figure", c.history->segment_figure},
                      {"figure", c.history->figure},
                      {"runs", c.history->runs}};
    cells.push_back(std::move(j));
  }
  return {{"schema", "abench.gate"},
          {"schema_version", 1},
          {"confidence", v.confidence},
          {"exit_code", v.exit_code()},
          {"regressions", v.regressions},
          {"improvements", v.improvements},
          {"unchanged", v.unchanged},
          {"unclear", v.unclear},
          {"allow_unclear", v.allow_unclear},
          {"undecided", v.undecided},
          {"failed", v.failed},
          {"warnings", v.warnings},
          {"notes", v.notes},
          {"cells", cells}};
}

GateVerdict gate_verdict_from_json(const nlohmann::json& j, const std::string& path) {
  GateVerdict v;
  try {
    if (j.value("schema", "") != "abench.gate")
      throw UsageError(fmt::format("{}: field 'schema' is not \"abench.gate\"", path));
    // Files before the confidence was recorded were judged at compare's default.
    v.confidence = j.value("confidence", VerdictSettings{}.confidence);
    if (!(v.confidence > 0.5 && v.confidence < 1))
      throw UsageError(fmt::format("{}: field 'confidence' must lie between 0.5 and 1", path));
    const auto& cells = j.at("cells");
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const auto& c = cells.at(i);
      const std::string where = fmt::format("{}: cells[{}]", path, i);
      GateCell cell;
      cell.key = c.at("cell").get<std::string>();
      cell.metric = c.at("metric").get<std::string>();
      cell.threshold = number_in(c, "threshold", 0, 10, where);
      cell.noise_floor = number_in(c, "noise_floor", 0, 10, where);
      cell.applied = number_in(c, "applied_threshold", 0, 100, where);
      const std::string result = c.at("result").get<std::string>();
      const auto outcome =
          std::find_if(std::begin(kOutcomes), std::end(kOutcomes), [&](GateOutcome o) { return name_of(o) == result; });
      if (outcome == std::end(kOutcomes))
        throw UsageError(
            fmt::format("{}: cell '{}': field 'result' is '{}', not a gate outcome", path, cell.key, result));
      cell.outcome = *outcome;
      cell.problem = c.value("problem", "");
      if (c.at("change").is_number()) {
        Judgement judgement;
        judgement.change = number_in(c, "change", -1, 1e6, where);
        const auto& interval = c.at("interval");
        if (!interval.is_array() || interval.size() != 2)
          throw UsageError(fmt::format("{}: field 'interval' must be [low, high]", where));
        judgement.low = number_in(interval, 0, where);
        judgement.high = number_in(interval, 1, where);
        if (!(judgement.low <= judgement.change && judgement.change <= judgement.high))
          throw UsageError(fmt::format("{}: field 'interval' [{}, {}] does not hold its change {}", where,
                                       judgement.low, judgement.high, judgement.change));
        judgement.coverage = number_in(c, "coverage", 0, 1, where);
        judgement.paired = c.at("paired").get<bool>();
        judgement.replicates = c.at("replicates").get<int>();
        const std::string call = c.value("call", "");
        bool known = false;
        for (Call named : {Call::slower, Call::faster, Call::same, Call::unclear, Call::undecided})
          if (name_of(named) == call) {
            judgement.call = named;
            known = true;
          }
        if (call == "~") judgement.call = Call::unclear, known = true;  // before same and unclear
        if (!known)
          throw UsageError(fmt::format("{}: field 'call' is '{}' (allowed: slower, faster, same, unclear, undecided)",
                                       where, printable(call.substr(0, 20))));
        judgement.detectable = detectable_change(judgement.change, judgement.low, judgement.high, cell.applied);
        cell.judgement = judgement;
      }
      if (c.contains("history")) cell.history = history_basis(c.at("history"), where + ": field 'history'");
      v.cells.push_back(std::move(cell));
    }
    v.allow_unclear = j.value("allow_unclear", false);  // files before it: unclear cells passed
    v.warnings = j.at("warnings").get<std::vector<std::string>>();
    v.notes = j.at("notes").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{} is not an abench gate file: {}", path, e.what()));
  }
  recount(v);
  return v;
}

}  // namespace abench
