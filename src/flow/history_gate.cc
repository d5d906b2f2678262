#include "src/flow/history_gate.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "src/results/results_reader.h"
#include "src/run/execute.h"
#include "src/store/history_changes.h"
#include "src/store/history_series.h"
#include "src/store/history_store.h"
#include "src/util/atomic_file.h"
#include "src/verdict/segment_rule.h"

namespace abench {
namespace {

// The gated side of the run: every cell of a plain run, the candidates (odd variants) of one
// measured side by side with the baseline's workers.
std::map<std::string, const CellRecord*> gated_cells(const RunResults& run) {
  std::map<std::string, const CellRecord*> cells;
  const bool two_sides = !run.plan.partner.empty();
  for (const CellRecord& c : run.cells)
    if (!two_sides || c.cell.variant % 2 == 1) cells.emplace(cell_key(run, c), &c);
  return cells;
}

bool series_of(const Series& s, const RunResults& run, const CellRecord& c) {
  const Variant& v = run.plan.variants[c.cell.variant];
  const CellSpec& spec = c.cell.spec;
  return s.machine == run.conditions.machine_fingerprint && s.measure == name_of(run.protocol.measure) &&
         s.variant == v.label() && s.backend == v.backend && s.policy == name_of(spec.policy) &&
         s.workload == name_of(spec.workload) && s.size == static_cast<std::int64_t>(spec.size) &&
         s.requested == static_cast<std::int64_t>(spec.alignment.requested) &&
         s.preferred == static_cast<std::int64_t>(spec.alignment.preferred) &&
         s.live == static_cast<std::int64_t>(spec.live);
}

struct Segment {
  std::vector<double> figures;
  std::string first_commit, last_commit;
  std::string change_commit;  // "" : the segment starts the series
};

// The runs like the gated one since the series' last change point (the library's or where
// the measuring abench changed): other commits' runs, measured by the gated run's abench and
// timed loop (`measurer`).
Segment segment_of(const Series& series, const RunResults& run, const std::string& commit,
                   const SeriesPoint& measurer) {
  std::vector<Series> prior{series};
  std::erase_if(prior[0].points, [&](const SeriesPoint& p) { return p.commit == commit || p.run == run.run_id; });
  std::size_t start = 0;
  Segment segment;
  for (const SeriesChange& c : find_changes(prior, ChangePointRule{}))
    if (c.index > start) start = c.index, segment.change_commit = c.commit;
  const auto& points = prior[0].points;
  if (start >= points.size() || !same_measurer(points[start], measurer)) return segment;
  for (std::size_t i = start; i < points.size(); ++i) segment.figures.push_back(points[i].figure);
  segment.first_commit = points[start].commit;
  segment.last_commit = points.back().commit;
  return segment;
}

double geometric_mean(const std::vector<double>& figures) {
  double log_sum = 0;
  for (double x : figures) log_sum += std::log(x);
  return std::exp(log_sum / static_cast<double>(figures.size()));
}

// A cell judged against its history: where it is, and what it was judged against.
struct Judged {
  GateCell* cell;
  const CellRecord* record;
  Segment segment;
};

void judge(const Judged& j, const std::vector<double>& runs, double confidence, bool allow_unclear) {
  j.cell->judgement = judge_against_segment(j.segment.figures, runs, confidence, j.cell->applied, j.cell->applied);
  j.cell->history = HistoryBasis{static_cast<int>(j.segment.figures.size()),
                                 j.segment.first_commit,
                                 j.segment.last_commit,
                                 j.segment.change_commit,
                                 geometric_mean(j.segment.figures),
                                 geometric_mean(runs),
                                 static_cast<int>(runs.size())};
  set_outcome(*j.cell, allow_unclear);
}

// The house rule of confirmation (src/verdict/gate_confirmation.h), against the history: the
// variants of the cells called regressions measured once more, and a cell stays a regression
// only where the second run alone and both runs together call it one.
std::string confirm(GateVerdict& verdict, const std::vector<Judged>& regressed, const RunResults& run,
                    const HistoryGating& h) {
  std::set<std::size_t> variants;
  for (const Judged& j : regressed) {
    variants.insert(j.record->cell.variant);
    if (!run.plan.partner.empty()) variants.insert(j.record->cell.variant - 1);  // its pair's other side
  }
  Plan plan = *h.plan_to_confirm;
  std::erase_if(plan.jobs,
                [&](const Job& job) { return job.mode != WorkerMode::time || !variants.contains(job.variant); });
  const auto second_dir = h.dir / "confirm-history";
  make_output_subdirectory(second_dir);
  const RunResults second = execute_plan(std::move(plan), *h.matrix_to_confirm, second_dir, h.command_line);
  throw_if_interrupted(second, second_dir, nullptr);
  const auto again = gated_cells(second);
  int stand = 0;
  for (const Judged& j : regressed) {
    const auto found = again.find(j.cell->key);
    if (found == again.end() || !found->second->summary.ns_per_op) {
      j.cell->outcome = GateOutcome::failed;
      j.cell->problem = "its second run, measured to confirm a regression against its history, failed";
      continue;
    }
    const double first = j.cell->history->figure, repeat = *found->second->summary.ns_per_op;
    const Call alone =
        judge_against_segment(j.segment.figures, {repeat}, verdict.confidence, j.cell->applied, j.cell->applied).call;
    judge(j, {first, repeat}, verdict.confidence, verdict.allow_unclear);
    if (j.cell->outcome == GateOutcome::regression && alone != Call::slower) {
      j.cell->outcome = GateOutcome::pass;
      j.cell->problem = "called a regression against its history by one run of two, not by the other";
    }
    stand += j.cell->outcome == GateOutcome::regression;
  }
  return fmt::format(" {} regressions against the history were measured a second time ({}): {} stand.",
                     regressed.size(), second_dir.string(), stand);
}

}  // namespace

void judge_with_history(GateVerdict& verdict, const HistoryGating& h) {
  const RunResults run = load_results((h.dir / "results.json").string());
  const auto cells = gated_cells(run);
  std::vector<std::string> labels;
  for (const auto& [key, record] : cells) labels.push_back(run.plan.variants[record->cell.variant].label());
  HistoryStore history(h.store);
  const std::vector<Series> all = read_series(history, SeriesFilter{labels, {}, {}, {}, {}});
  const auto fact = run.conditions.facts.find("abench_git_revision");
  const std::string revision = fact != run.conditions.facts.end() && fact->is_string() ? fact->get<std::string>() : "";
  std::vector<Judged> judged, regressed;
  for (GateCell& cell : verdict.cells) {
    const auto found = cells.find(cell.key);
    if (found == cells.end() || !found->second->summary.ns_per_op) continue;
    const auto series =
        std::find_if(all.begin(), all.end(), [&](const Series& s) { return series_of(s, run, *found->second); });
    if (series == all.end()) continue;
    SeriesPoint measurer;
    measurer.abench_revision = revision;
    if (const WorkerHello* hello = hello_of_variant(run, found->second->cell.variant))
      measurer.timed_loop = hello->timed_loop;
    Judged j{&cell, found->second, segment_of(*series, run, h.commit, measurer)};
    if (j.segment.figures.size() < kMinSegmentPoints) continue;
    judge(j, {*found->second->summary.ns_per_op}, verdict.confidence, verdict.allow_unclear);
    if (cell.outcome == GateOutcome::regression) regressed.push_back(j);
    judged.push_back(std::move(j));
  }
  std::string confirmed;
  if (!regressed.empty() && h.matrix_to_confirm && h.plan_to_confirm) confirmed = confirm(verdict, regressed, run, h);
  recount(verdict);
  if (judged.empty()) {
    verdict.notes.push_back(fmt::format(
        "The history store holds fewer than {} runs like this one since any cell's last change point: every "
        "cell was judged against the baseline.",
        kMinSegmentPoints));
    return;
  }
  const auto [fewest, most] = std::minmax_element(judged.begin(), judged.end(), [](const Judged& a, const Judged& b) {
    return a.segment.figures.size() < b.segment.figures.size();
  });
  verdict.notes.push_back(fmt::format(
      "{} of {} cells were judged against their history: the runs since each one's last change point, {} to {} "
      "of them (commits other than {}, measured by this abench on this machine); {} with fewer than {} such runs "
      "against the baseline.{}",
      judged.size(), verdict.cells.size(), fewest->segment.figures.size(), most->segment.figures.size(), h.commit,
      verdict.cells.size() - judged.size(), kMinSegmentPoints, confirmed));
}

}  // namespace abench
