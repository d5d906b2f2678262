#include "src/flow/bisect_resume.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"

namespace abench {
namespace {

Judgement judgement_from(const nlohmann::json& j, const std::string& where) {
  Judgement judged;
  const auto& interval = j.at("interval");
  if (!j.at("change").is_number() || !interval.is_array() || interval.size() != 2 || !interval[0].is_number() ||
      !interval[1].is_number())
    throw UsageError(where + ": a change is {\"change\", \"interval\": [low, high], \"call\"}");
  judged.change = j["change"].get<double>();
  judged.low = interval[0].get<double>();
  judged.high = interval[1].get<double>();
  if (!std::isfinite(judged.change) || !(judged.low <= judged.change && judged.change <= judged.high))
    throw UsageError(fmt::format("{}: the interval [{}, {}] does not hold its change {}", where, judged.low,
                                 judged.high, judged.change));
  const std::string call = j.at("call").get<std::string>();
  bool known = false;
  for (Call c : {Call::slower, Call::faster, Call::same, Call::unclear, Call::undecided})
    if (name_of(c) == call) judged.call = c, known = true;
  if (!known)
    throw UsageError(fmt::format("{}: field 'call' is '{}' (allowed: slower, faster, same, unclear, undecided)", where,
                                 printable(call.substr(0, 20))));
  return judged;
}

CommitState state_from(const std::string& result, const std::string& where) {
  for (CommitState s : {CommitState::good, CommitState::bad, CommitState::unknown, CommitState::skipped})
    if (name_of(s) == result) return s;
  throw UsageError(fmt::format("{}: field 'result' is '{}' (allowed: good, bad, unknown, skipped)", where,
                               printable(result.substr(0, 20))));
}

BisectStep step_from(const nlohmann::json& j, bool ends, const std::string& where) {
  BisectStep step;
  step.number = j.at("step").get<int>();
  step.commit = j.at("commit").get<std::string>();
  if (step.commit.size() < 7 || step.commit.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw UsageError(where + ": field 'commit' is not a commit's hash");
  step.subject = j.at("subject").get<std::string>();
  step.role = ends ? "bad against good" : "tested";
  step.state = ends ? CommitState::bad : state_from(j.at("result").get<std::string>(), where);
  step.why = j.at("why").get<std::string>();
  step.dir = j.at("dir").get<std::string>();
  for (const auto& c : j.at("cells")) {
    BisectCell cell{c.at("cell").get<std::string>(), {}, {}};
    if (ends) {
      cell.against_good = cell.against_bad = judgement_from(c.at("change"), where);
    } else {
      cell.against_good = judgement_from(c.at("against_good"), where);
      cell.against_bad = judgement_from(c.at("against_bad"), where);
    }
    step.cells.push_back(std::move(cell));
  }
  return step;
}

}  // namespace

FinishedSteps read_finished_steps(const std::filesystem::path& file, const BisectRecord& asked) {
  const std::string where = file.string();
  const nlohmann::json j = read_json_file(where, "a bisect's record");
  FinishedSteps finished;
  try {
    if (j.value("schema", "") != "abench.bisect" || j.value("schema_version", 0) != 1)
      throw UsageError(where + ": not an abench bisect record (schema abench.bisect, version 1)");
    for (const auto& [key, value] : std::map<std::string, std::string>{{"repo", asked.repo},
                                                                       {"good", asked.good},
                                                                       {"bad", asked.bad},
                                                                       {"build", asked.build},
                                                                       {"spec", asked.spec}})
      if (j.at(key).get<std::string>() != value)
        throw UsageError(fmt::format(
            "{}: a bisect with another {} ('{}', asked: '{}'); --resume goes on only with "
            "the same command",
            where, key, printable(j.at(key).get<std::string>().substr(0, 80)), printable(value.substr(0, 80))));
    const auto& steps = j.at("steps");
    if (!steps.is_array() || steps.empty()) throw UsageError(where + ": field 'steps' holds no step");
    finished.ends = step_from(steps[0], true, where + ": steps[0]");
    for (std::size_t i = 1; i < steps.size(); ++i) {
      BisectStep step = step_from(steps[i], false, fmt::format("{}: steps[{}]", where, i));
      finished.tested[step.commit] = std::move(step);
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{} is not an abench bisect record: {}", where, e.what()));
  }
  return finished;
}

}  // namespace abench
