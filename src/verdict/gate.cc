#include "src/verdict/gate.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "src/util/comment_markdown.h"

#include "src/util/errors.h"
#include "src/util/text.h"
#include "src/plan/matrix.h"
#include "src/verdict/pairing.h"

namespace abench {
namespace {

double percent_field(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto& v = j.at(key);
  if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1000)
    throw UsageError(fmt::format("{}: field '{}' must be a percentage from 0 to 1000, got {}", where, key, v.dump()));
  return v.get<double>() / 100;
}

}  // namespace

// Iterative, with one backtrack point (the last '*'): O(pattern x text) at worst, where the
// recursive form took exponential time on "********x" (a gate file is input too).
bool glob_match(std::string_view pattern, std::string_view text) {
  std::size_t p = 0, t = 0;
  std::size_t star = std::string_view::npos, resume_text = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume_text = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;  // let the last '*' take one more character
      t = ++resume_text;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

GateRules load_gate_rules(const std::string& path) {
  const nlohmann::json j = read_json_file(path, "the gate file");
  const std::set<std::string> allowed{"threshold_percent", "instruction_threshold_percent", "noise_multiplier",
                                      "workloads", "cells"};
  if (!j.is_object()) throw UsageError(path + ": a gate file is a JSON object");
  GateRules rules;
  for (const auto& [key, value] : j.items()) {
    if (!allowed.contains(key))
      throw UsageError(
          fmt::format("{}: unknown field '{}' (allowed: threshold_percent, "
                      "instruction_threshold_percent, noise_multiplier, workloads, cells)",
                      path, key));
  }
  if (j.contains("threshold_percent")) rules.threshold = percent_field(j, "threshold_percent", path);
  if (j.contains("instruction_threshold_percent"))
    rules.instruction_threshold = percent_field(j, "instruction_threshold_percent", path);
  if (j.contains("noise_multiplier")) {
    if (!j["noise_multiplier"].is_number() || j["noise_multiplier"].get<double>() < 0)
      throw UsageError(path + ": field 'noise_multiplier' must be a non-negative number");
    rules.noise_multiplier = j["noise_multiplier"].get<double>();
  }
  if (j.contains("workloads")) {
    if (!j["workloads"].is_object())
      throw UsageError(path + ": field 'workloads' must map workload names to percentages");
    for (const auto& [workload, value] : j["workloads"].items()) {
      parse_workload(workload, path + ": field 'workloads'");
      rules.workload_thresholds[workload] =
          percent_field(j["workloads"], workload.c_str(), path + ": field 'workloads'");
    }
  }
  if (j.contains("cells")) {
    if (!j["cells"].is_array())
      throw UsageError(path + ": field 'cells' must be an array of {\"match\", \"threshold_percent\"}");
    for (const auto& rule : j["cells"]) {
      if (!rule.is_object() || !rule.contains("match") || !rule["match"].is_string() ||
          !rule.contains("threshold_percent"))
        throw UsageError(path +
                         ": every entry of 'cells' needs \"match\" (a pattern such as \"jemalloc/*/grow/*\") "
                         "and \"threshold_percent\"");
      rules.cell_thresholds.emplace_back(rule["match"].get<std::string>(),
                                         percent_field(rule, "threshold_percent", path + ": field 'cells'"));
    }
  }
  return rules;
}

std::string_view name_of(GateOutcome outcome) {
  switch (outcome) {
    case GateOutcome::pass: return "pass";
    case GateOutcome::regression: return "REGRESSION";
    case GateOutcome::improvement: return "improvement";
    case GateOutcome::unclear: return "UNCLEAR";
    case GateOutcome::undecided: return "UNDECIDED";
    case GateOutcome::failed: return "FAILED";
  }
  return "?";
}

int GateVerdict::exit_code() const {
  // A gate passes only what it judged: nothing judged is no pass.
  if (failed > 0 || undecided > 0 || cells.empty()) return kExitMeasurementFailed;
  if (regressions > 0) return kExitRegression;  // a regression found is the answer, whatever else is unclear
  if (unclear > 0) return kExitMeasurementFailed;
  return kExitOk;
}

GateVerdict evaluate_gate(const std::vector<CellPair>& pairs, const GateRules& rules,
                          const std::map<std::string, double>& noise_floors, const VerdictSettings& settings) {
  GateVerdict verdict;
  verdict.confidence = settings.confidence;
  verdict.allow_unclear = rules.allow_unclear;
  for (const CellPair& pair : pairs) {
    GateCell cell;
    cell.key = pair.key;
    cell.metric = pair.metric;
    cell.threshold = pair.instructions ? rules.instruction_threshold : rules.threshold;
    if (auto w = rules.workload_thresholds.find(pair.workload); w != rules.workload_thresholds.end())
      cell.threshold = w->second;
    for (const auto& [pattern, threshold] : rules.cell_thresholds)
      if (glob_match(pattern, pair.key)) {
        cell.threshold = threshold;
        break;
      }
    if (auto n = noise_floors.find(pair.key); n != noise_floors.end()) cell.noise_floor = n->second;
    cell.applied = std::max(cell.threshold, rules.noise_multiplier * cell.noise_floor);
    if (!pair.problem.empty() || pair.before.empty() || pair.after.empty()) {
      cell.problem = pair.problem.empty() ? "no samples" : pair.problem;  // the pairing's guards
    } else {
      // The cell's margin is its applied threshold: `same` when the interval is within it.
      cell.judgement = judge_change(pair.sides(), settings.confidence, cell.applied, cell.applied);
      set_outcome(cell, rules.allow_unclear);
    }
    verdict.cells.push_back(std::move(cell));
  }
  recount(verdict);
  return verdict;
}

void set_outcome(GateCell& cell, bool allow_unclear) {
  cell.problem.clear();
  switch (cell.judgement->call) {
    case Call::slower: cell.outcome = GateOutcome::regression; break;
    case Call::faster: cell.outcome = GateOutcome::improvement; break;
    case Call::same: cell.outcome = GateOutcome::pass; break;
    case Call::unclear:
      if (cell.judgement->high <= cell.applied) {
        cell.outcome = GateOutcome::pass;  // only an improvement could hide in it
        break;
      }
      cell.problem = fmt::format("a regression up to {:+.1f}% could hide in the interval (threshold {:.1f}%)",
                                 cell.judgement->high * 100, cell.applied * 100);
      cell.outcome = allow_unclear ? GateOutcome::pass : GateOutcome::unclear;
      break;
    case Call::undecided:
      cell.outcome = GateOutcome::undecided;
      cell.problem = cell.judgement->reason;
      break;
  }
}

void recount(GateVerdict& v) {
  v.regressions = v.improvements = v.unchanged = v.unclear = v.undecided = v.failed = v.unclear_allowed = 0;
  for (const GateCell& c : v.cells) {
    v.unclear_allowed += c.outcome == GateOutcome::pass && !c.problem.empty();
    switch (c.outcome) {
      case GateOutcome::regression: ++v.regressions; break;
      case GateOutcome::improvement: ++v.improvements; break;
      case GateOutcome::pass: ++v.unchanged; break;
      case GateOutcome::unclear: ++v.unclear; break;
      case GateOutcome::undecided: ++v.undecided; break;
      case GateOutcome::failed: ++v.failed; break;
    }
  }
}

std::string gate_summary_lines(const GateVerdict& v) {
  return fmt::format("regressions: {}\nimprovements: {}\nunchanged: {}{}\nunclear: {}\nundecided: {}\nfailed: {}\n",
                     v.regressions, v.improvements, v.unchanged,
                     v.unclear_allowed
                         ? fmt::format(" ({} of them unclear, passed by --allow-unclear)", v.unclear_allowed)
                         : std::string(),
                     v.unclear, v.undecided, v.failed);
}

namespace {

std::string gate_result_text(const GateCell& c) {
  return c.outcome == GateOutcome::failed      ? "FAILED: " + c.problem.substr(0, 80)
         : c.outcome == GateOutcome::undecided ? "UNDECIDED: " + c.problem
         : c.outcome == GateOutcome::unclear   ? "UNCLEAR: " + c.problem
         : !c.problem.empty()                  ? "pass (unclear, allowed): " + c.problem
                                               : std::string(name_of(c.outcome));
}

std::vector<std::string> gate_row(const GateCell& c) {
  return {c.key,
          c.judgement ? fmt::format("{:+.2f}%", c.judgement->change * 100) : "-",
          c.judgement ? fmt::format("[{:+.2f}%, {:+.2f}%]", c.judgement->low * 100, c.judgement->high * 100) : "-",
          fmt::format("{:.2f}%", c.threshold * 100),
          fmt::format("{:.2f}%", c.noise_floor * 100),
          fmt::format("{:.2f}%{}", c.applied * 100, c.applied > c.threshold ? " (noise)" : ""),
          gate_result_text(c)};
}

std::string counted(int n, const char* thing) { return fmt::format("{} {}{}", n, thing, n == 1 ? "" : "s"); }

const std::vector<std::string> kGateHeader{"cell",        "change",  "interval", "threshold",
                                           "noise floor", "applied", "result"};
const std::vector<bool> kGateNumeric{false, true, false, true, true, true, false};

// Regressions first, then what kept the gate from a verdict, then improvements; within
// each, the largest change first.
int attention_rank(GateOutcome o) {
  switch (o) {
    case GateOutcome::regression: return 0;
    case GateOutcome::failed: return 1;
    case GateOutcome::unclear: return 2;
    case GateOutcome::undecided: return 3;
    case GateOutcome::improvement: return 4;
    case GateOutcome::pass: return 5;
  }
  return 5;
}

// The cells judged against their history: what each was judged against.
CommentSection history_section(const GateVerdict& v) {
  CommentSection section = folded_section("Cells judged against their history");
  section.numeric = {false, true, false, true, true, true, false, false};
  for (const GateCell& c : v.cells) {
    if (!c.history || !c.judgement) continue;
    if (section.table.empty())
      section.table.push_back({"cell", "points", "since", "segment", "this run", "change", "interval", "result"});
    const HistoryBasis& h = *c.history;
    section.table.push_back(
        {c.key, std::to_string(h.points),
         h.change_commit.empty() ? h.first_commit + " (the series' start)" : h.first_commit + " (change point)",
         fmt::format("{:.4g}", h.segment_figure),
         h.runs == 1 ? fmt::format("{:.4g}", h.figure) : fmt::format("{:.4g} ({} runs)", h.figure, h.runs),
         fmt::format("{:+.2f}%", c.judgement->change * 100),
         fmt::format("[{:+.2f}%, {:+.2f}%]", c.judgement->low * 100, c.judgement->high * 100), gate_result_text(c)});
  }
  section.before =
      "Each judged against the runs since its last change point (this run's figure over the segment's "
      "geometric mean − 1; the interval a run like the segment's falls in, at the gate's confidence).\n";
  return section;
}

}  // namespace

std::string gate_markdown(const GateVerdict& v) {
  const char* title = v.exit_code() == 0                  ? "pass"
                      : v.exit_code() == 1                ? "REGRESSION"
                      : v.failed > 0                      ? "measurement failed"
                      : v.unclear > 0 && v.undecided == 0 ? "unclear (a regression could hide in some cells)"
                                                          : "not judged (no pass without a verdict)";
  std::string headline =
      fmt::format("### abench gate: {}\n\n{}, {}, {} unchanged{}, {} unclear, {} undecided, {} failed, of {} cells.",
                  title, counted(v.regressions, "regression"), counted(v.improvements, "improvement"), v.unchanged,
                  v.unclear_allowed ? fmt::format(" ({} unclear, passed by --allow-unclear)", v.unclear_allowed) : "",
                  v.unclear, v.undecided, v.failed, v.cells.size());
  std::set<std::string> metrics;
  for (const GateCell& c : v.cells) metrics.insert(c.metric);
  const auto by_history = std::count_if(v.cells.begin(), v.cells.end(), [](const GateCell& c) { return c.history; });
  for (const std::string& m : metrics)
    headline += fmt::format(" Judged on {}: change = candidate/baseline − 1, {:g}% intervals.", markdown_text(m),
                            v.confidence * 100);
  if (by_history > 0)
    headline += fmt::format(
        " {} of {} cells were judged against their history instead: this run over the runs since the "
        "cell's last change point − 1 (below).",
        by_history, v.cells.size());

  std::vector<const GateCell*> attention;
  for (const GateCell& c : v.cells)
    if (c.outcome != GateOutcome::pass || !c.problem.empty()) attention.push_back(&c);
  std::stable_sort(attention.begin(), attention.end(), [](const GateCell* a, const GateCell* b) {
    const int ra = attention_rank(a->outcome), rb = attention_rank(b->outcome);
    if (ra != rb) return ra < rb;
    const double ca = a->judgement ? std::abs(a->judgement->change) : 0,
                 cb = b->judgement ? std::abs(b->judgement->change) : 0;
    return ca > cb;
  });
  std::vector<CommentSection> sections;
  CommentSection first = shown_section("Cells that did not simply pass, regressions first");
  first.numeric = kGateNumeric;
  if (v.cells.empty())
    first.before = "No cell to judge: a gate over nothing does not pass.";
  else if (attention.empty())
    first.before = "Every cell passed.";
  else {
    first.table.push_back(kGateHeader);
    for (const GateCell* c : attention) first.table.push_back(gate_row(*c));
  }
  if (v.unclear > 0)
    first.after =
        "An UNCLEAR cell was not called, but its interval reaches past the threshold on the slower side: "
        "more rounds (--budget, --processes) narrow it; --allow-unclear passes it.\n";
  sections.push_back(std::move(first));
  if (CommentSection history = history_section(v); !history.table.empty()) sections.push_back(std::move(history));
  std::string notes;
  for (const auto& n : v.notes) notes += markdown_text(n) + "\n\n";
  for (const auto& w : v.warnings) notes += "> **Warning:** " + markdown_text(w) + "\n\n";
  if (!notes.empty()) sections.push_back(shown_section("", notes));
  CommentSection all = folded_section(fmt::format("All {} cells", v.cells.size()));
  all.table.push_back(kGateHeader);
  all.numeric = kGateNumeric;
  for (const GateCell& c : v.cells) all.table.push_back(gate_row(c));
  all.after = gate_summary_lines(v);
  if (!v.cells.empty()) sections.push_back(std::move(all));
  return comment_markdown(headline, sections, "gate.json");
}

}  // namespace abench
