#include "src/verdict/compare_file.h"

#include "src/plan/protocol_rules.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include <fmt/format.h>

#include "src/explain/explain_compare.h"
#include "src/explain/explanation_codec.h"
#include "src/plan/matrix.h"
#include "src/plan/protocol_rules.h"
#include "src/util/errors.h"
#include "src/util/json_field.h"
#include "src/util/json_file.h"
#include "src/util/text.h"

namespace abench {

void put_change(nlohmann::json& j, const std::optional<Judgement>& judgement, const std::string& problem) {
  if (judgement) {
    j["change"] = judgement->change;
    j["interval"] = {judgement->low, judgement->high};
    j["coverage"] = judgement->coverage;
    j["paired"] = judgement->paired;
    j["replicates"] = judgement->replicates;
    // Undecided: no interval at the confidence, so no change it could call.
    j["detectable_change"] =
        judgement->call == Call::undecided ? nlohmann::json(nullptr) : nlohmann::json(judgement->detectable);
  } else {
    j["change"] = nullptr;
    j["interval"] = nullptr;
  }
  if (!problem.empty()) j["problem"] = problem;
}

namespace {
// Each side's timed loops where workers named them (harness/timed_loop.h); a file of runs before
// them is as it was.
void add_timed_loops(nlohmann::json& out, const Comparison& c) {
  const auto named = [](const std::vector<std::string>& loops) {
    return std::any_of(loops.begin(), loops.end(), [](const std::string& l) { return !l.empty(); });
  };
  if (!named(c.baseline_loops) && !named(c.candidate_loops)) return;
  out["baseline_timed_loops"] = c.baseline_loops;
  out["candidate_timed_loops"] = c.candidate_loops;
}
}  // namespace

nlohmann::json comparison_json(const Comparison& c) {
  const MetricNames& m = metric_names(c.measure);
  const CompareTally t = tally_of(c);
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
                     {std::string("before_") + m.per_op, opt(row.before_ns)},
                     {std::string("after_") + m.per_op, opt(row.after_ns)},
                     {std::string("before_range_") + m.per_op, {opt(row.before_min), opt(row.before_max)}},
                     {std::string("after_range_") + m.per_op, {opt(row.after_min), opt(row.after_max)}},
                     {"verdict", name_of(row.verdict)}};
    put_change(j, row.judgement, row.problem);
    j["counts_before"] = row.before_counts ? nlohmann::json(*row.before_counts) : nlohmann::json(nullptr);
    j["counts_after"] = row.after_counts ? nlohmann::json(*row.after_counts) : nlohmann::json(nullptr);
    j["counts_unavailable"] =
        row.counts_unavailable.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.counts_unavailable);
    if (c.explained && row.explanation) put_explanation(j, *row.explanation);
    if (c.context) j["context"] = row.context;
    if (c.layouts) {
      j["layout"] = row.layout;
      j["layout_range"] = row.layout_range ? nlohmann::json(*row.layout_range) : nlohmann::json(nullptr);
    }
    rows.push_back(std::move(j));
  }
  nlohmann::json geomeans = nlohmann::json::object();
  for (const auto& [backend, change] : c.geomean_change_by_backend) geomeans[backend] = change;
  nlohmann::json out{
      {"schema", "abench.compare"},
      {"schema_version", kCompareSchemaVersion},
      {"metric", m.per_op},
      {"backends", c.pair_backends},
      {"method",
       {{"statistic",
         "per process: its median sample; per round: after/before of its two "
         "processes; change: the median over rounds"},
        {"interval", interval_method_text(c) + " (docs/statistics.md)"},
        {"measure", name_of(c.measure)},
        {"samples_paired", c.samples_paired},
        {"confidence", c.settings.confidence},
        {"min_effect", c.settings.min_effect},
        {"detect", c.settings.detect}}},
      {"processes_per_side", c.processes},
      {"until_interval",
       c.until_interval > 0
           ? nlohmann::json{{"width_percent", c.until_interval * 100},
                            {"max_rounds", c.max_rounds},
                            {"budget_seconds", c.budget_s > 0 ? nlohmann::json(c.budget_s) : nlohmann::json(nullptr)}}
           : nlohmann::json(nullptr)},
      {"judged", t.judged},
      {"undecided", t.undecided},
      {"calls", t.calls},
      {"same", t.same},
      {"unclear", t.unclear},
      {"median_detectable_change", t.median_detectable},
      {"expected_false_calls", t.expected_false_calls},
      {"baselines", c.baseline_labels},
      {"candidates", c.candidate_labels},
      {"baseline_allocators", c.baseline_allocators},
      {"candidate_allocators", c.candidate_allocators},
      {"rows", rows},
      {"geomean_change_by_backend", geomeans},
      {"geomean_change", c.geomean_change ? nlohmann::json(*c.geomean_change) : nlohmann::json(nullptr)},
      {"warnings", c.warnings}};
  if (c.explained) out["explain"] = explain_method_json();  // --explain only: other files are as they were
  if (c.context) out["context"] = true;                     // --context: every row has its "context" mark
  if (c.layouts) out["layouts"] = true;                     // --layouts: every row has its "layout" mark
  add_timed_loops(out, c);
  return out;
}

namespace {

constexpr Verdict kVerdicts[] = {Verdict::slower,  Verdict::faster,    Verdict::same,
                                 Verdict::unclear, Verdict::undecided, Verdict::failed};

std::optional<double> optional_figure(const JsonField& f) {
  if (f.json().is_null()) return std::nullopt;
  return f.figure();
}

double finite(const JsonField& f) {
  if (!f.json().is_number() || !std::isfinite(f.json().get<double>()))
    f.fail("must be a finite number, got " + f.shown());
  return f.json().get<double>();
}

std::optional<CellCounts> counts_at(const JsonField& f) {
  if (f.json().is_null()) return std::nullopt;
  try {
    return f.json().get<CellCounts>();
  } catch (const std::exception& e) {
    f.fail(std::string("is not a counting run's report: ") + printable(std::string(e.what()).substr(0, 200)));
  }
}

Judgement judgement_at(const JsonField& row) {
  Judgement j;
  j.change = finite(row.at("change"));
  const JsonField interval = row.at("interval");
  if (interval.size_of_list() != 2) interval.fail("must be [low, high]");
  j.low = finite(interval.at(std::size_t{0}));
  j.high = finite(interval.at(std::size_t{1}));
  if (!(j.low <= j.change && j.change <= j.high)) interval.fail("must hold the change");
  j.coverage = finite(row.at("coverage"));
  if (j.coverage < 0 || j.coverage > 1) row.at("coverage").fail("must lie from 0 to 1");
  j.paired = row.at("paired").flag();
  j.replicates = row.at("replicates").whole<int>(1, 100000);
  return j;
}

// The detectable change is derived from the interval, never taken from the file.
void check_detectable(const JsonField& row, Judgement& j, double bar) {
  const bool undecided = j.call == Call::undecided;
  j.detectable = undecided ? 0 : detectable_change(j.change, j.low, j.high, bar);
  if (!row.has("detectable_change")) return;  // a file from before the field
  if (undecided) {
    if (!row.at("detectable_change").json().is_null())
      row.at("detectable_change").fail("must be null in an undecided row");
    return;
  }
  const double said = finite(row.at("detectable_change"));
  if (std::abs(said - j.detectable) > 1e-9 * std::max(1.0, std::abs(said)))
    row.at("detectable_change").fail(fmt::format("is {:g}, but its interval makes it {:g}", said, j.detectable));
}

// A called or unchanged row's verdict must be the one rule's, at the file's own settings.
void check_verdict(const JsonField& row, const CompareRow& r, const VerdictSettings& settings) {
  if (r.verdict == Verdict::failed) {
    if (r.judgement) row.at("change").fail("must be null in a failed row");
    return;
  }
  if (!r.judgement) row.at("change").fail(fmt::format("is missing in a row whose verdict is '{}'", name_of(r.verdict)));
  if (r.verdict == Verdict::undecided) return;
  // 1e-9: the coverage is written and read as a double.
  if (r.judgement->coverage + 1e-9 < settings.confidence)
    row.at("verdict").fail(fmt::format("is '{}', but its interval covers {:g}, less than the file's confidence {:g}",
                                       name_of(r.verdict), r.judgement->coverage, settings.confidence));
  const Call call =
      call_of(r.judgement->change, r.judgement->low, r.judgement->high, settings.min_effect, settings.detect);
  if (name_of(verdict_of(call)) != name_of(r.verdict))
    row.at("verdict").fail(
        fmt::format("is '{}', but its change {:+.2f}% and interval [{:+.2f}%, {:+.2f}%] at "
                    "minimum effect {:g}% and margin ±{:g}% make it '{}'",
                    name_of(r.verdict), r.judgement->change * 100, r.judgement->low * 100, r.judgement->high * 100,
                    settings.min_effect * 100, settings.detect * 100, name_of(call)));
}

// A row's mark of the sides on which something moves (--context, --layouts).
std::string side_mark(const JsonField& row, const char* key) {
  std::string mark = row.at(key).text();
  if (mark != "-" && mark != "baseline" && mark != "candidate" && mark != "both")
    row.at(key).fail(fmt::format("is '{}' (allowed: -, baseline, candidate, both)", printable(mark.substr(0, 40))));
  return mark;
}

CompareRow row_from(const JsonField& row, const Comparison& c) {
  CompareRow r;
  const std::size_t pairs = c.baseline_labels.size();
  r.pair = row.at("pair").whole<std::size_t>(0, pairs - 1);
  if (row.at("baseline").text() != c.baseline_labels[r.pair] ||
      row.at("candidate").text() != c.candidate_labels[r.pair])
    row.at("baseline").fail(fmt::format("and 'candidate' must be pair {}'s labels", r.pair));
  r.spec.workload = parse_workload(row.at("workload").text(), row.at("workload").where());
  r.spec.size = parse_size(row.at("size").json(), row.at("size").where());
  r.spec.alignment = parse_alignment(
      {{"requested", row.at("requested_align").json()}, {"preferred", row.at("preferred_align").json()}},
      row.at("requested_align").where());
  r.spec.live = parse_live(row.at("live").json(), row.at("live").where());
  r.before_cell = row.at("before_cell").whole<int>(0, 1 << 30);
  r.after_cell = row.at("after_cell").whole<int>(0, 1 << 30);
  const MetricNames& m = metric_names(c.measure);
  r.before_ns = optional_figure(row.at((std::string("before_") + m.per_op).c_str()));
  r.after_ns = optional_figure(row.at((std::string("after_") + m.per_op).c_str()));
  for (auto [key, low, high] : {std::tuple{"before_range_", &r.before_min, &r.before_max},
                                std::tuple{"after_range_", &r.after_min, &r.after_max}}) {
    const JsonField range = row.at((key + std::string(m.per_op)).c_str());
    if (range.size_of_list() != 2) range.fail("must be [low, high]");
    *low = optional_figure(range.at(std::size_t{0}));
    *high = optional_figure(range.at(std::size_t{1}));
  }
  std::string verdict = row.at("verdict").text();
  if (verdict == "~" && c.legacy_verdicts)  // version 1's name for a change not called
    if (!row.at("change").json().is_null()) {
      const Judgement j = judgement_at(row);
      verdict = name_of(call_of(j.change, j.low, j.high, c.settings.min_effect, c.settings.detect));
    }
  const auto named =
      std::find_if(std::begin(kVerdicts), std::end(kVerdicts), [&](Verdict v) { return name_of(v) == verdict; });
  if (named == std::end(kVerdicts))
    row.at("verdict").fail(fmt::format("is '{}' (allowed: slower, faster, same, unclear, undecided, failed)",
                                       printable(verdict.substr(0, 40))));
  r.verdict = *named;
  if (!row.at("change").json().is_null()) r.judgement = judgement_at(row);
  if (row.has("problem")) r.problem = row.at("problem").text();
  if (r.judgement && r.verdict == Verdict::undecided)
    r.judgement->call = Call::undecided, r.judgement->reason = r.problem;
  else if (r.judgement)
    r.judgement->call =
        call_of(r.judgement->change, r.judgement->low, r.judgement->high, c.settings.min_effect, c.settings.detect);
  check_verdict(row, r, c.settings);
  if (r.judgement) check_detectable(row, *r.judgement, c.settings.min_effect);
  r.before_counts = counts_at(row.at("counts_before"));
  r.after_counts = counts_at(row.at("counts_after"));
  if (row.has("counts_unavailable")) r.counts_unavailable = row.at("counts_unavailable").text();
  if (c.explained) r.explanation = explanation_at(row, time_change_of(r));
  if (c.context) r.context = side_mark(row, "context");
  if (c.layouts) {
    r.layout = side_mark(row, "layout");
    if (!row.at("layout_range").json().is_null()) r.layout_range = row.at("layout_range").figure();
  }
  return r;
}

}  // namespace

Comparison comparison_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object() || j.value("schema", "") != "abench.compare")
    throw UsageError(path + ": not an abench compare file (field 'schema' is not \"abench.compare\")");
  const JsonField root(path, j, "", "malformed compare file");
  Comparison c;
  c.legacy_verdicts = root.at("schema_version").whole<int>(1, kCompareSchemaVersion) == 1;
  const std::string metric = root.at("metric").text();
  const JsonField method = root.at("method");
  if (method.has("measure") && !measure_named(method.at("measure").text(), c.measure))
    method.at("measure").fail(fmt::format("is not a measure (allowed: {})", measure_names()));
  if (metric != metric_names(c.measure).per_op)
    root.at("metric").fail(fmt::format("is '{}', but the measure's figure is '{}'", printable(metric.substr(0, 40)),
                                       metric_names(c.measure).per_op));
  c.settings.confidence = finite(method.at("confidence"));
  if (!(c.settings.confidence > 0.5 && c.settings.confidence < 1))
    method.at("confidence").fail("must lie between 0.5 and 1");
  c.settings.min_effect = finite(method.at("min_effect"));
  if (!(c.settings.min_effect >= 0 && c.settings.min_effect <= 1)) method.at("min_effect").fail("must lie from 0 to 1");
  if (method.has("detect")) {
    c.settings.detect = finite(method.at("detect"));
    if (!(c.settings.detect > 0 && c.settings.detect <= 1)) method.at("detect").fail("must lie above 0, to 1");
  } else if (!c.legacy_verdicts) {
    method.at("detect").fail("is missing");
  }
  c.samples_paired = method.has("samples_paired") && method.at("samples_paired").flag();
  c.processes = root.at("processes_per_side").whole<int>(1, 1000);
  if (root.has("until_interval")) {
    const JsonField adaptive = root.at("until_interval");
    c.until_interval = finite(adaptive.at("width_percent")) / 100;
    if (!(c.until_interval > 0 && c.until_interval <= 1))
      adaptive.at("width_percent").fail("must lie from 0.01 to 100");
    c.max_rounds = adaptive.at("max_rounds").whole<int>(c.processes, 1000);
    if (adaptive.has("budget_seconds")) {
      c.budget_s = finite(adaptive.at("budget_seconds"));
      if (!(c.budget_s >= 1 && c.budget_s <= kMaxBudgetSeconds))
        adaptive.at("budget_seconds")
            .fail(fmt::format("must be a number of seconds from 1 to {:g}", kMaxBudgetSeconds));
    }
  }
  c.baseline_labels = root.at("baselines").texts();
  c.candidate_labels = root.at("candidates").texts();
  c.baseline_allocators = root.at("baseline_allocators").texts();
  c.candidate_allocators = root.at("candidate_allocators").texts();
  const std::size_t pairs = c.baseline_labels.size();
  c.pair_backends = root.has("backends") ? root.at("backends").texts() : std::vector<std::string>(pairs);
  if (pairs == 0) root.at("baselines").fail("must name at least one pair");
  for (const char* key : {"candidates", "baseline_allocators", "candidate_allocators", "backends",
                          "baseline_timed_loops", "candidate_timed_loops"})
    if (root.has(key) && root.at(key).size_of_list() != pairs)
      root.at(key).fail(fmt::format("has {} entries for {} pairs", root.at(key).size_of_list(), pairs));
  for (auto [key, loops] :
       {std::pair{"baseline_timed_loops", &c.baseline_loops}, std::pair{"candidate_timed_loops", &c.candidate_loops}}) {
    *loops = root.has(key) ? root.at(key).texts() : std::vector<std::string>(pairs);
    for (const std::string& loop : *loops)
      if (!is_timed_loop_or_empty(loop))
        root.at(key).fail("must hold 16 lowercase hex digits (harness/timed_loop.h), or empty, for each pair");
  }
  c.explained = root.has("explain");
  c.context = root.has("context") && root.at("context").flag();
  c.layouts = root.has("layouts") && root.at("layouts").flag();
  const JsonField rows = root.at("rows");
  for (std::size_t i = 0; i < rows.size_of_list(); ++i) c.rows.push_back(row_from(rows.at(i), c));

  const CompareTally t = tally_of(c);
  for (auto [key, derived] : {std::pair{"judged", t.judged}, std::pair{"undecided", t.undecided},
                              std::pair{"calls", t.calls}, std::pair{"same", t.same}, std::pair{"unclear", t.unclear}})
    if (!c.legacy_verdicts || root.has(key))
      if (const int said = root.at(key).whole<int>(0, 1 << 30); said != derived)
        root.at(key).fail(fmt::format("is {}, but the rows make it {}", said, derived));
  derive_from_rows(c);
  return c;
}

Comparison load_comparison(const std::string& path) {
  return comparison_from_json(read_json_file(path, "the compare file"), path);
}

}  // namespace abench
