// abench compare's verdicts: each baseline cell against its candidate partner, judged by
// the one rule (src/verdict/change_rule.h), with counts old -> new. Plain data;
// compare_writers.cc serializes it (docs/statistics.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/explain/work_figures.h"
#include "src/results/results.h"
#include "src/verdict/change_rule.h"

namespace abench {

// What every verdict is judged with, compare's and the gate's alike: the confidence of the
// interval, and compare's bar (the gate's bar is its thresholds and noise floors). Both
// compare.json and gate.json record it.
struct VerdictSettings {
  double min_effect = 0.01;  // compare: a change smaller than this is never called significant
  double confidence = 0.95;
  // compare: the equivalence margin (--detect): a cell is `same` when its whole interval lies
  // within ±detect, `unclear` when it is neither that nor called (change_rule.h).
  double detect = 0.03;
};

// same, unclear: as change_rule.h's Call; undecided: measured, but too few rounds to reach the
// confidence (the row says how many).
enum class Verdict { slower, faster, same, unclear, undecided, failed };
std::string_view name_of(Verdict v);

struct CompareRow {
  std::size_t pair = 0;
  CellSpec spec;
  int before_cell = 0, after_cell = 0;
  std::optional<double> before_ns, after_ns;
  std::optional<double> before_min, before_max, after_min, after_max;
  std::optional<Judgement> judgement;  // when both sides measured the cell
  Verdict verdict = Verdict::failed;
  std::string problem;  // why there is no verdict (failed or undecided)
  std::optional<CellCounts> before_counts, after_counts;
  std::string counts_unavailable;              // why a side has no counts ("" when both were counted)
  std::optional<PairExplanation> explanation;  // --explain (src/explain/explain_compare.h)
  // compare --context: the sides on which the cell's figure depends on the cells before it
  // ("-", "baseline", "candidate", "both"; src/verdict/context.h); "" without --context
  std::string context;
  // compare --layouts: the sides on which the cell's figure moves with layout beyond --detect
  // ("-", "baseline", "candidate", "both"), and the wider side's range between its layouts
  // (src/stats/layout_spread.h); "" and none without --layouts
  std::string layout;
  std::optional<double> layout_range;
};

struct Comparison {
  VerdictSettings settings;
  Measure measure = Measure::time;  // what the figures are (metric_names)
  bool samples_paired = false;      // each round's two processes took turns batch by batch
  int processes = 0;                // rounds every cell had; with adaptive rounds, the first of them
  double until_interval = 0;        // adaptive rounds' target width (a fraction), 0 without
  int max_rounds = 0;
  double budget_s = 0;                                         // --budget (seconds), 0 without
  std::vector<std::string> baseline_labels, candidate_labels;  // one per pair
  // What each side's workers said serves malloc: version and file ("" if none started).
  std::vector<std::string> baseline_allocators, candidate_allocators;
  // Each side's timed loop (harness/timed_loop.h), "" where its workers named none.
  std::vector<std::string> baseline_loops, candidate_loops;
  std::vector<std::string> pair_backends;
  std::vector<CompareRow> rows;
  std::map<std::string, double> geomean_change_by_backend;  // exp(mean log ratio) - 1
  std::optional<double> geomean_change;
  std::vector<std::string> warnings;
  bool explained = false;        // --explain: every row has its explanation
  bool context = false;          // --context: every row has its context mark
  bool layouts = false;          // --layouts: every row has its layout mark
  bool legacy_verdicts = false;  // read from a version 1 compare.json (src/verdict/compare_file.h)
};

// What the rows add up to, for the footer and compare.json.
struct CompareTally {
  int calls = 0;   // slower or faster
  int judged = 0;  // rows with a verdict (slower, faster, same, unclear)
  int same = 0, unclear = 0;
  int undecided = 0;             // too few rounds for the confidence
  double median_detectable = 0;  // over the judged rows: the smallest change each could have called
  // With nothing changed, how many calls chance alone would make (at most): the sum over
  // judged rows of 1 - their interval's coverage; and the smallest such coverage.
  double expected_false_calls = 0;
  double least_coverage = 1;
};
CompareTally tally_of(const Comparison& c);

// A row's verdict from its judgement's call.
Verdict verdict_of(Call call);

// --layouts: sets row.layout, the sides whose figure moves with layout beyond `margin`
// ("-", "baseline", "candidate", "both"), and row.layout_range, the wider side's range.
void mark_layout(CompareRow& row, const CellSummary& before, const CellSummary& after, double margin);

// results must come from make_compare_plan (variant 2p baseline, 2p+1 candidate).
Comparison compare_results(const RunResults& results, const VerdictSettings& settings);
// What follows from a comparison's rows: the geometric means and the warnings.
void derive_from_rows(Comparison& c);

// "change", "interval", "coverage", "paired" in j, or nulls and "problem" without them.

// compare.md, shaped for a pull-request comment (src/util/comment_markdown.h): the headline
// and the changed cells first, every cell folded; appendix (Markdown) goes last.
std::string comparison_markdown(const Comparison& c, const std::string& appendix = "");
std::string comparison_csv(const Comparison& c);
// How the interval was computed, in words (compare.md and compare.json say it).
std::string interval_method_text(const Comparison& c);

}  // namespace abench
