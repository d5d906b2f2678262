// compare.md (ready to paste into a pull request), compare.csv and compare.json.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "src/verdict/compare.h"
#include "src/results/count_text.h"
#include "src/explain/explanation_codec.h"
#include "src/util/comment_markdown.h"
#include "src/util/csv.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string ns(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

std::string signed_percent(double change) { return fmt::format("{:+.1f}%", change * 100); }

std::string range(const std::optional<double>& lo, const std::optional<double>& hi) {
  return lo ? fmt::format("{:.2f}-{:.2f}", *lo, *hi) : "-";
}

// "old → new", or the one value when both sides agree.
template <class F>
std::string old_new(const CompareRow& row, F field) {
  if (!row.counts_unavailable.empty()) return "unavailable";
  if (!row.before_counts || !row.after_counts) return "-";
  const std::string before = field(*row.before_counts), after = field(*row.after_counts);
  return before == after ? before : before + " → " + after;
}

std::string requested(const CellCounts& c) { return per_buffer_text(c.requested_bytes, c.operations); }
std::string usable(const CellCounts& c) { return range_text(c.usable_bytes_min, c.usable_bytes_max); }
std::string requests(const CellCounts& c) { return per_buffer_text(c.requests, c.operations); }

std::string change_text(const CompareRow& row) {
  if (!row.judgement) return "-";
  return signed_percent(row.judgement->change);
}

std::string interval_text(const CompareRow& row, bool adaptive) {
  if (!row.judgement) return "-";
  const std::string interval =
      fmt::format("[{}, {}]", signed_percent(row.judgement->low), signed_percent(row.judgement->high));
  return adaptive ? fmt::format("{} in {}", interval, row.judgement->replicates) : interval;
}

// "6 processes a side", or with adaptive rounds how many rounds the cells took and why.
std::string rounds_text(const Comparison& c) {
  if (c.until_interval <= 0) return fmt::format("{} processes a side, one pair a round", c.processes);
  int least = 0, most = 0;
  for (const CompareRow& row : c.rows)
    if (row.judgement) {
      least = least == 0 ? row.judgement->replicates : std::min(least, row.judgement->replicates);
      most = std::max(most, row.judgement->replicates);
    }
  if (c.budget_s > 0)
    return fmt::format(
        "{} to {} rounds a cell, one pair of processes a round (--budget {}: {} rounds, then one "
        "more for the cells whose interval was wider than {:g}% and expected to narrow to it in the "
        "time left, cheapest first, at most {}; the interval column says \"in N\" rounds)",
        least, most, format_duration(c.budget_s), c.processes, c.until_interval * 100, c.max_rounds);
  return fmt::format(
      "{} to {} rounds a cell, one pair of processes a round (--until-interval {:g}%: {} rounds, then "
      "one more while a cell's interval was wider than {:g}%, at most {}; the interval column says "
      "\"in N\" rounds)",
      least, most, c.until_interval * 100, c.processes, c.until_interval * 100, c.max_rounds);
}

// "812 → 1612 (+98.5%)": instructions per operation on each side, from --explain.
std::string instructions_text(const CompareRow& row) {
  if (!row.explanation) return "-";
  const PairExplanation& e = *row.explanation;
  if (!e.before || !e.after) return "unavailable";
  const double before = e.before->at("instructions"), after = e.after->at("instructions");
  const auto change = relative_change(before, after);
  return fmt::format("{:.0f} → {:.0f}{}", before, after, change ? " (" + signed_percent(*change) + ")" : "");
}

std::string reading_text(const CompareRow& row) {
  if (!row.explanation || row.explanation->reading.empty()) return "-";
  return row.explanation->reading;
}

// What --explain counted and how far its counts repeat, under the table.
std::string explain_footer(const Comparison& c) {
  double repeatability = 0;
  int explained = 0;
  for (const CompareRow& row : c.rows)
    if (row.explanation && row.explanation->before && row.explanation->after) {
      ++explained;
      repeatability =
          std::max({repeatability, row.explanation->before->repeatability, row.explanation->after->repeatability});
    }
  return fmt::format(
      "\nWork (--explain): instructions per operation before → after, counted under callgrind with its "
      "cache and branch simulators in instrumented processes of their own (explain/; every figure in "
      "compare.csv), for {} of {} cells; the instrumented processes of a side agreed within {:.2f}%. "
      "Reading: {}.\n",
      explained, c.rows.size(), repeatability * 100, reading_rule_text());
}

std::string verdict_text(const CompareRow& row) {
  if (row.verdict == Verdict::failed) return "failed: " + row.problem.substr(0, 80);
  if (row.verdict == Verdict::undecided) return "undecided: " + row.problem;
  return std::string(name_of(row.verdict));
}

bool changed(const CompareRow& row) { return row.verdict == Verdict::slower || row.verdict == Verdict::faster; }

bool counts_changed(const CompareRow& row) {
  return row.before_counts && row.after_counts &&
         (requested(*row.before_counts) != requested(*row.after_counts) ||
          usable(*row.before_counts) != usable(*row.after_counts) ||
          requests(*row.before_counts) != requests(*row.after_counts));
}

// "### abench compare: 2 slower, 1 faster, 138 same, 3 unclear, 0 failed", then who against
// whom with the geometric means: what a reviewer needs before any table.
std::string headline(const Comparison& c) {
  int slower = 0, faster = 0, failed = 0, counted = 0;
  for (const CompareRow& row : c.rows) {
    slower += row.verdict == Verdict::slower;
    faster += row.verdict == Verdict::faster;
    failed += row.verdict == Verdict::failed;
    counted += counts_changed(row);
  }
  const CompareTally t = tally_of(c);
  std::string out =
      fmt::format("### abench compare: {} slower, {} faster, {} same, {} unclear, {} failed{}\n\n", slower, faster,
                  t.same, t.unclear, failed, t.undecided ? fmt::format(", {} undecided", t.undecided) : "");
  for (std::size_t p = 0; p < c.baseline_labels.size(); ++p)
    out += fmt::format("{}**{}** (before) → **{}** (after)", p ? "; " : "", markdown_text(c.baseline_labels[p]),
                       markdown_text(c.candidate_labels[p]));
  out += fmt::format(", {} cells, {}.", c.rows.size(),
                     c.until_interval > 0 ? "adaptive rounds" : fmt::format("{} processes a side", c.processes));
  if (!c.geomean_change_by_backend.empty()) {
    out += " Geometric-mean change:";
    for (const auto& [backend, change] : c.geomean_change_by_backend)
      out += fmt::format(" {} {},", markdown_text(backend), signed_percent(change));
    out.pop_back();
    if (c.geomean_change) out += fmt::format(" (overall {})", signed_percent(*c.geomean_change));
    out += ".";
  }
  if (counted > 0) out += fmt::format(" Counts (requested or usable bytes, requests) differ in {} cells.", counted);
  return out + "\n";
}

std::vector<std::string> table_header(const Comparison& c, bool full) {
  const std::string unit = metric_names(c.measure).column;
  std::vector<std::string> h{"backend",        "workload",      "size",   "align",   "live",
                             "before " + unit, "after " + unit, "change", "interval"};
  if (full) h.insert(h.end(), {"before range", "after range"});
  h.push_back("requested bytes");
  if (full) h.insert(h.end(), {"usable bytes", "requests"});
  h.push_back("verdict");
  if (c.context) h.push_back("context");
  if (c.layouts) h.push_back("layout");
  if (c.explained) h.insert(h.end(), {"instr/op", "reading"});
  return h;
}

std::vector<bool> table_numeric(const Comparison& c, bool full) {
  std::vector<bool> numeric;
  for (const std::string& h : table_header(c, full))
    numeric.push_back(h == "size" || h == "align" || h == "live" || h == "change" || h == "instr/op" ||
                      ((h.starts_with("before ") || h.starts_with("after ")) && !h.ends_with(" range")));
  return numeric;
}

std::vector<std::string> table_row(const Comparison& c, const CompareRow& row, bool full) {
  std::vector<std::string> r{c.pair_backends[row.pair],
                             std::string(name_of(row.spec.workload)),
                             std::to_string(row.spec.size),
                             fmt::format("{}:{}", row.spec.alignment.requested, row.spec.alignment.preferred),
                             std::to_string(row.spec.live),
                             ns(row.before_ns),
                             ns(row.after_ns),
                             change_text(row),
                             interval_text(row, c.until_interval > 0)};
  if (full) r.insert(r.end(), {range(row.before_min, row.before_max), range(row.after_min, row.after_max)});
  r.push_back(old_new(row, requested));
  if (full) r.insert(r.end(), {old_new(row, usable), old_new(row, requests)});
  r.push_back(verdict_text(row));
  if (c.context) r.push_back(row.context);
  if (c.layouts)
    r.push_back(row.layout_range && row.layout != "-"
                    ? fmt::format("{} ({:.1f}% apart)", row.layout, 100 * *row.layout_range)
                    : row.layout);
  if (c.explained) r.insert(r.end(), {instructions_text(row), reading_text(row)});
  return r;
}

// The method, in words: what every figure and verdict in the table means.
std::string method_text(const Comparison& c) {
  return fmt::format(
      "{}; before/after: median of the process medians, {}; change = after/before − 1 (positive: slower); "
      "interval: {}; slower/faster: the interval excludes 0 and |change| ≥ {:.1f}%; same: the whole interval within "
      "±{:g}% (--detect); unclear: neither, so a change beyond ±{:g}% could hide in it; undecided: too few rounds for "
      "the confidence. Counts per buffer.\n",
      rounds_text(c), metric_names(c.measure).column, interval_method_text(c), c.settings.min_effect * 100,
      c.settings.detect * 100, c.settings.detect * 100);
}

// Under the whole table: how many calls chance alone makes, and what the rounds could detect.
std::string tally_text(const Comparison& c) {
  const CompareTally t = tally_of(c);
  if (t.judged == 0) return "";
  return fmt::format(
      "Faster or slower: {} of {} judged cells. With nothing changed, chance alone would call about "
      "{:.1f} of them (at most; each interval covers at least {:.1f}%, and changes under {:.1f}% are "
      "never called).\nSame within ±{:g}%: {}; unclear: {}; undecided: {}. The smallest change a cell "
      "could have called (its detectable change), median over the judged cells: {:.1f}%.\n",
      t.calls, t.judged, t.expected_false_calls, t.least_coverage * 100, c.settings.min_effect * 100,
      c.settings.detect * 100, t.same, t.unclear, t.undecided, t.median_detectable * 100);
}

std::string provenance_text(const Comparison& c) {
  std::string out;
  for (std::size_t p = 0; p < c.baseline_labels.size(); ++p) {
    out += fmt::format("- **{}** (before) vs **{}** (after)\n", markdown_text(c.baseline_labels[p]),
                       markdown_text(c.candidate_labels[p]));
    if (p < c.baseline_allocators.size() && !c.baseline_allocators[p].empty())
      out += fmt::format("  - before: {}\n  - after: {}\n", markdown_text(c.baseline_allocators[p]),
                         markdown_text(c.candidate_allocators[p]));
  }
  return out;
}

}  // namespace

std::string comparison_markdown(const Comparison& c, const std::string& appendix) {
  std::vector<const CompareRow*> moved;
  for (const CompareRow& row : c.rows)
    if (changed(row)) moved.push_back(&row);
  std::stable_sort(moved.begin(), moved.end(), [](const CompareRow* a, const CompareRow* b) {
    return std::abs(a->judgement->change) > std::abs(b->judgement->change);
  });
  std::vector<CommentSection> sections;
  CommentSection changes = shown_section("Changed cells, largest change first");
  changes.numeric = table_numeric(c, false);
  if (moved.empty()) {
    changes.before = "No cell is faster or slower by the rule below.";
  } else {
    changes.table.push_back(table_header(c, false));
    for (const CompareRow* row : moved) changes.table.push_back(table_row(c, *row, false));
  }
  sections.push_back(std::move(changes));

  CommentSection unjudged = shown_section("Cells without a verdict");
  unjudged.table.push_back({"backend", "workload", "size", "align", "live", "why"});
  for (const CompareRow& row : c.rows)
    if (row.verdict == Verdict::failed || row.verdict == Verdict::undecided)
      unjudged.table.push_back({c.pair_backends[row.pair], std::string(name_of(row.spec.workload)),
                                std::to_string(row.spec.size),
                                fmt::format("{}:{}", row.spec.alignment.requested, row.spec.alignment.preferred),
                                std::to_string(row.spec.live), verdict_text(row)});
  unjudged.numeric = {false, false, true, true, true, false};
  if (unjudged.table.size() > 1) sections.push_back(std::move(unjudged));

  std::string notes;
  for (const auto& w : c.warnings) notes += "> **Note:** " + markdown_text(w) + "\n\n";
  if (!notes.empty()) sections.push_back(shown_section("", notes));

  CommentSection all = folded_section(fmt::format("All {} cells, in matrix order", c.rows.size()), method_text(c));
  all.table.push_back(table_header(c, true));
  all.numeric = table_numeric(c, true);
  for (const CompareRow& row : c.rows) all.table.push_back(table_row(c, row, true));
  if (c.explained) all.after += explain_footer(c) + "\n";
  if (c.context)
    all.after +=
        "context (--context): the sides on which the cell's figure depends on the cells run before it in its "
        "process (in matrix against fresh processes of its own; Context-sensitive cells below lists them).\n\n";
  if (c.layouts)
    all.after += fmt::format(
        "layout (--layouts): the sides on which the cell's figure moves with layout (its layouts' medians this far "
        "apart, a Kruskal-Wallis test between them at p ≤ {:g}) beyond ±{:g}%; each verdict pairs the layouts.\n\n",
        kLayoutSensitiveLevel, 100 * c.settings.detect);
  all.after += tally_text(c);
  sections.push_back(std::move(all));
  sections.push_back(folded_section("What each side ran (labels, allocators serving malloc)", provenance_text(c)));
  if (!appendix.empty()) sections.push_back(shown_section("", appendix));
  return comment_markdown(headline(c), sections, "compare.csv");
}

std::string comparison_csv(const Comparison& c) {
  const MetricNames& m = metric_names(c.measure);
  const std::string per_op = m.per_op, min = m.process_min, max = m.process_max;
  std::vector<std::string> header{"baseline",
                                  "candidate",
                                  "workload",
                                  "size",
                                  "requested_align",
                                  "preferred_align",
                                  "live",
                                  "before_" + per_op,
                                  "after_" + per_op,
                                  "change",
                                  "interval_low",
                                  "interval_high",
                                  "coverage",
                                  "before_" + min,
                                  "before_" + max,
                                  "after_" + min,
                                  "after_" + max,
                                  "requested_bytes_before",
                                  "requested_bytes_after",
                                  "usable_bytes_before",
                                  "usable_bytes_after",
                                  "requests_before",
                                  "requests_after",
                                  "verdict",
                                  "detectable_change"};
  if (c.context) header.push_back("context");
  if (c.layouts) header.insert(header.end(), {"layout", "layout_range"});
  if (c.explained) {
    const auto more = explanation_csv_header();
    header.insert(header.end(), more.begin(), more.end());
  }
  std::string out = csv_row(header);
  auto opt = [](const std::optional<double>& v) { return v ? fmt::format("{:.3f}", *v) : std::string(); };
  auto counts = [](const std::optional<CellCounts>& k, auto f) { return k ? f(*k) : std::string(); };
  auto judged = [](const CompareRow& row, double Judgement::*field, const char* format) {
    return row.judgement ? fmt::format(fmt::runtime(format), (*row.judgement).*field) : std::string();
  };
  for (const CompareRow& row : c.rows) {
    std::vector<std::string> fields{
        c.baseline_labels[row.pair],
        c.candidate_labels[row.pair],
        std::string(name_of(row.spec.workload)),
        std::to_string(row.spec.size),
        std::to_string(row.spec.alignment.requested),
        std::to_string(row.spec.alignment.preferred),
        std::to_string(row.spec.live),
        opt(row.before_ns),
        opt(row.after_ns),
        judged(row, &Judgement::change, "{:.5f}"),
        judged(row, &Judgement::low, "{:.5f}"),
        judged(row, &Judgement::high, "{:.5f}"),
        judged(row, &Judgement::coverage, "{:.4f}"),
        opt(row.before_min),
        opt(row.before_max),
        opt(row.after_min),
        opt(row.after_max),
        counts(row.before_counts, requested),
        counts(row.after_counts, requested),
        counts(row.before_counts, usable),
        counts(row.after_counts, usable),
        counts(row.before_counts, requests),
        counts(row.after_counts, requests),
        std::string(name_of(row.verdict)),
        row.verdict == Verdict::undecided ? std::string() : judged(row, &Judgement::detectable, "{:.5f}")};
    if (c.context) fields.push_back(row.context);
    if (c.layouts) fields.insert(fields.end(), {row.layout, opt(row.layout_range)});
    if (c.explained) {
      const auto more = explanation_csv_cells(row.explanation.value_or(PairExplanation{}));
      fields.insert(fields.end(), more.begin(), more.end());
    }
    out += csv_row(fields);
  }
  return out;
}

std::string interval_method_text(const Comparison& c) {
  if (row_of(c.measure).exact)
    return "exact counts: the interval is the range of the rounds' changes, and a change is called when that "
           "range excludes 0";
  return fmt::format("exact {:.0f}% sign-test interval over the rounds' paired ratios{} (change: their median)",
                     c.settings.confidence * 100,
                     c.samples_paired ? ", each from the samples the two processes took in turns: the mean of the "
                                        "median sample ratio of the pairs each side led"
                                      : "");
}

}  // namespace abench
