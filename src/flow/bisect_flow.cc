#include "src/flow/bisect_flow.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include <fmt/format.h>

#include "src/flow/bisect_files.h"
#include "src/flow/bisect_from_history.h"
#include "src/flow/bisect_resume.h"
#include "src/flow/bisect_search.h"
#include "src/flow/commit_builds.h"
#include "src/flow/git_repository.h"
#include "src/flow/measure_setup.h"
#include "src/flow/verdict_files.h"
#include "src/flow/output_directory.h"
#include "src/run/execute.h"
#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string cell_name(const CompareRow& row) {
  const CellSpec& s = row.spec;
  return fmt::format("{}/{}/{}/{}:{}/{}", name_of(s.policy), name_of(s.workload), s.size, s.alignment.requested,
                     s.alignment.preferred, s.live);
}

// What a bisect measures with, fixed at its start.
struct Bench {
  const BisectRequest& request;
  Matrix matrix;
  VerdictSettings settings;
  std::filesystem::path dir;
  const std::vector<std::string>& command_line;
};

// The variants SPEC stands for with {out} the build's, each named `label`.
std::vector<Variant> variants_of(const Bench& b, const CommitBuild& build, const std::string& label) {
  const std::string spec = with_placeholder(b.request.spec, "out", build.out.string());
  std::vector<Variant> variants = expand_variant_spec(parse_variant_spec(spec, "--spec", built_backends()), b.matrix);
  for (Variant& v : variants)
    v.name = variants.size() == 1 ? label : fmt::format("{} {}/{}", label, v.backend, name_of(v.policy));
  return variants;
}

// One compare, one interleaved run: pair p measures baselines[p] against candidates[p].
Comparison compare_builds(const Bench& b, const Matrix& matrix, const std::vector<Variant>& baselines,
                          const std::vector<Variant>& candidates, const std::filesystem::path& dir) {
  Plan plan = make_compare_plan(matrix, baselines, candidates, matrix.protocol.seed);
  ProcessLauncher launcher;
  preflight_variants(plan.variants, matrix.protocol.counts, launcher);
  make_output_subdirectory(dir);
  const RunResults results = execute_plan(std::move(plan), matrix, dir, b.command_line);
  throw_if_interrupted(results, dir, nullptr);
  Comparison comparison = compare_results(results, b.settings);
  write_compare_files(comparison, dir);
  return comparison;
}

// Whether an interval of a change lies within ±half: the two builds measure alike.
bool alike(const Judgement& j, double half) { return j.low >= -half && j.high <= half; }

// A tested commit by its compare against both ends: good where it measures like the good build
// and not like the bad one in every changed cell, bad where the other way round; otherwise
// unknown, with the cell that kept it so.
CommitState state_of(const Comparison& c, std::size_t pairs, const std::map<std::string, double>& changed,
                     BisectStep& step) {
  std::map<std::string, const CompareRow*> vs_good, vs_bad;
  for (const CompareRow& row : c.rows) (row.pair < pairs ? vs_good : vs_bad)[cell_name(row)] = &row;
  int good = 0, bad = 0;
  for (const auto& [cell, change] : changed) {
    const CompareRow* g = vs_good.count(cell) ? vs_good[cell] : nullptr;
    const CompareRow* d = vs_bad.count(cell) ? vs_bad[cell] : nullptr;
    if (!g || !d || !g->judgement || !d->judgement) {
      step.why = fmt::format("{}: not measured on both sides ({})", cell,
                             g && !g->problem.empty() ? g->problem
                             : d                      ? d->problem
                                                      : "missing");
      return CommitState::unknown;
    }
    step.cells.push_back({cell, *g->judgement, *d->judgement});
    const double half = std::fabs(change) / 2;
    const bool like_good = alike(*g->judgement, half), like_bad = alike(*d->judgement, half);
    good += like_good && !like_bad;
    bad += like_bad && !like_good;
    if (!(like_good != like_bad) && step.why.empty())
      step.why = fmt::format(
          "{}: {:+.2f}% [{:+.2f}%, {:+.2f}%] against good, {:+.2f}% [{:+.2f}%, {:+.2f}%] against "
          "bad: within half the change ({:.2f}%) of {}",
          cell, g->judgement->change * 100, g->judgement->low * 100, g->judgement->high * 100,
          d->judgement->change * 100, d->judgement->low * 100, d->judgement->high * 100, half * 100,
          like_good ? "both" : "neither");
  }
  const auto n = static_cast<int>(changed.size());
  if (good == n) return step.why.clear(), CommitState::good;
  if (bad == n) return step.why.clear(), CommitState::bad;
  if (step.why.empty()) step.why = "the changed cells disagree: some measure like the good build, some like the bad";
  return CommitState::unknown;
}

// The commits not yet tested between the last good and the first bad one.
std::size_t untested_between(const std::vector<CommitState>& states) {
  std::size_t last_good = 0, first_bad = states.size() - 1;
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (states[i] == CommitState::good) last_good = i;
    if (states[i] == CommitState::bad && i < first_bad) first_bad = i;
  }
  std::size_t left = 0;
  for (std::size_t i = last_good + 1; i < first_bad; ++i) left += states[i] == CommitState::untested;
  return left;
}

int elapsed_s(std::chrono::steady_clock::time_point start) {
  return static_cast<int>(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

// The request's placeholders: what a bisect cannot work with is refused before anything runs.
void check_placeholders(const BisectRequest& r) {
  if (r.spec.find("{out}") == std::string::npos)
    throw UsageError(
        fmt::format("option --spec: '{}' names nothing the build makes (allowed: a variant spec with "
                    "{{out}}, such as preload={{out}}/libx.so or exe={{out}}/abench-worker-mimalloc)",
                    printable(r.spec.substr(0, 80))));
  if (r.spec.find("{src}") != std::string::npos)
    throw UsageError(
        "option --spec: {src} is removed once the build is done; have --build put what --spec names "
        "under {out}");
  if (r.build.find("{out}") == std::string::npos)
    throw UsageError("option --build: the command must write its build under {out} (it names nothing of it)");
}

// One bisect under way: the ends built and measured, then each commit tested.
class Bisection {
 public:
  Bisection(const BisectRequest& r, Bench& bench)
      : r_(r),
        bench_(bench),
        repo_(r.repo, bench.dir / "git"),
        builds_(repo_, r.build, r.build_cache.empty() ? default_build_cache() : std::filesystem::path(r.build_cache)),
        start_(std::chrono::steady_clock::now()) {
    record_.repo = r.repo;
    record_.build = r.build;
    record_.spec = r.spec;
    record_.good = repo_.commit_of(r.good, "--good");
    record_.bad = repo_.commit_of(r.bad, "--bad");
    commits_ = repo_.path_between(record_.good, record_.bad);
    if (!r.resume.empty()) finished_ = read_finished_steps(bench.dir / "bisect.json", record_);
  }

  // Builds both ends and measures the bad against the good: the cells that changed.
  void measure_ends() {
    const CommitBuild good = builds_.build(record_.good), bad = builds_.build(record_.bad);
    if (!good.built || !bad.built)
      throw UsageError(fmt::format("option --build: the command fails at {} ({}); a bisect needs both ends built. {}",
                                   !good.built && !bad.built ? "both ends"
                                   : !good.built             ? "--good"
                                                             : "--bad",
                                   (!good.built ? good : bad).log.string(), (!good.built ? good : bad).failure));
    good_side_ = variants_of(bench_, good, "good " + short_hash(record_.good));
    bad_side_ = variants_of(bench_, bad, "bad " + short_hash(record_.bad));
    BisectStep ends{1, record_.bad, repo_.subject_of(record_.bad), "bad against good", CommitState::bad, "", "", {}};
    ends.dir = (bench_.dir / "step-01-ends").string();
    if (finished_) {
      ends = finished_->ends;
    } else {
      const Comparison between = measured_step(bench_.matrix, good_side_, bad_side_, ends.dir);
      for (const CompareRow& row : between.rows)
        if (row.judgement) ends.cells.push_back({cell_name(row), *row.judgement, *row.judgement});
    }
    for (const BisectCell& c : ends.cells)
      if (c.against_good.call == Call::slower || c.against_good.call == Call::faster)
        changed_[c.cell] = c.against_good.change;
    record_.steps.push_back(ends);
    record_.compares = 1;
    record_.changed = !changed_.empty();
    const bool alike = std::all_of(ends.cells.begin(), ends.cells.end(),
                                   [](const BisectCell& c) { return c.against_good.call == Call::same; });
    record_.ends = record_.changed ? "changed" : alike && !ends.cells.empty() ? "same" : "unclear";
    write_bisect_json(record_, bench_.dir, false);
    fmt::print("bisect: good {} against bad {}: {} of {} cells changed ({} commits between, {} s){}\n",
               short_hash(record_.good), short_hash(record_.bad), changed_.size(), ends.cells.size(),
               commits_.size() - 2, elapsed_s(start_), finished_ ? ", kept from the interrupted bisect" : "");
    std::fflush(stdout);
  }

  // The protocol of the steps between: each interval narrowed to half the smallest change, so
  // that it lies within half the change of one end and not of the other, or rounds run out
  // (unknown). Counts repeat exactly: their intervals have no width to narrow.
  void narrow(MeasureOptions measure) {
    double smallest = 1;
    for (const auto& [cell, change] : changed_) smallest = std::min(smallest, std::fabs(change));
    if (!measure.protocol.has("until_interval.width_percent") && !row_of(bench_.matrix.protocol.measure).exact)
      measure.protocol.give("until_interval.width_percent", std::max(smallest * 100 / 2, 0.1));
    measure.protocol.give("seed", bench_.matrix.protocol.seed);
    narrowing_ = load_measure_matrix(measure, built_backends());
    use_paired_protocol(narrowing_.protocol, measure, r_.confidence);
    narrowing_.protocol.counts = false;
  }

  void search() {
    const std::size_t cap =
        r_.max_steps > 0 ? static_cast<std::size_t>(r_.max_steps) : default_max_tests(commits_.size());
    const BisectRange range = bisect_commits(
        commits_.size(), [&](std::size_t i) { return test(i); }, states_, cap);
    record_.last_good = commits_[range.last_good];
    record_.first_bad_or_range_end = commits_[range.first_bad];
    record_.found = range.found();
    for (std::size_t i = range.last_good + 1; i < range.first_bad; ++i) record_.range.push_back(commits_[i]);
  }

  BisectRecord& finish() {
    record_.seconds = elapsed_s(start_);
    return record_;
  }
  bool changed() const { return !changed_.empty(); }
  std::size_t steps_done() const { return record_.steps.size(); }

 private:
  // Commit i built and compared against both ends in one run; skipped when it does not build
  // or its build cannot be measured.
  CommitState test(std::size_t i) {
    if (finished_ && finished_->tested.contains(commits_[i])) return kept(i);
    BisectStep step{static_cast<int>(record_.steps.size()) + 1,
                    commits_[i],
                    repo_.subject_of(commits_[i]),
                    "tested",
                    CommitState::unknown,
                    "",
                    "",
                    {}};
    const CommitBuild built = builds_.build(commits_[i]);
    if (!built.built) {
      step.state = CommitState::skipped;
      step.why =
          fmt::format("does not build: {} (its log: {})", printable_tail(built.failure, 160), built.log.string());
    } else {
      step.dir = (bench_.dir / fmt::format("step-{:02d}-{}", step.number, short_hash(commits_[i]))).string();
      try {
        const std::vector<Variant> tested = variants_of(bench_, built, short_hash(commits_[i]));
        std::vector<Variant> baselines = good_side_, candidates = tested;
        baselines.insert(baselines.end(), bad_side_.begin(), bad_side_.end());
        candidates.insert(candidates.end(), tested.begin(), tested.end());
        const Comparison c = measured_step(narrowing_, baselines, candidates, step.dir);
        ++record_.compares;
        step.state = state_of(c, good_side_.size(), changed_, step);
      } catch (const UsageError& e) {  // its worker refuses: as a commit that does not build
        step.state = CommitState::skipped;
        step.why = fmt::format("its build cannot be measured: {}", e.what());
      }
    }
    record_.steps.push_back(step);
    states_[i] = step.state;
    write_bisect_json(record_, bench_.dir, false);
    fmt::print("bisect: step {}: {} {} is {}; {} commits left to search, {} s\n", step.number, short_hash(commits_[i]),
               step.subject, name_of(step.state), untested_between(states_), elapsed_s(start_));
    std::fflush(stdout);  // a CI log shows each step as it ends
    return step.state;
  }

  // A step the interrupted bisect finished, taken as it was.
  CommitState kept(std::size_t i) {
    BisectStep step = finished_->tested.at(commits_[i]);
    step.number = static_cast<int>(record_.steps.size()) + 1;
    record_.compares += step.state == CommitState::skipped ? 0 : 1;
    record_.steps.push_back(step);
    states_[i] = step.state;
    fmt::print("bisect: step {}: {} {} is {} (kept from the interrupted bisect)\n", step.number,
               short_hash(commits_[i]), step.subject, name_of(step.state));
    std::fflush(stdout);
    return step.state;
  }

  // One step's compare into `dir`, where an interrupted one may have left part of it.
  Comparison measured_step(const Matrix& matrix, const std::vector<Variant>& baselines,
                           const std::vector<Variant>& candidates, const std::string& dir) {
    std::error_code ec;
    if (std::filesystem::symlink_status(dir, ec).type() == std::filesystem::file_type::directory)
      std::filesystem::remove_all(dir, ec);
    return compare_builds(bench_, matrix, baselines, candidates, dir);
  }

  const BisectRequest& r_;
  Bench& bench_;
  GitRepository repo_;
  CommitBuilds builds_;
  std::chrono::steady_clock::time_point start_;
  BisectRecord record_;
  std::vector<std::string> commits_;
  std::vector<Variant> good_side_, bad_side_;
  std::map<std::string, double> changed_;
  Matrix narrowing_;
  std::vector<CommitState> states_;
  std::optional<FinishedSteps> finished_;  // --resume: what the interrupted bisect measured
};

}  // namespace

int BisectOutcome::exit_code() const {
  return first_bad || (!changed && ends_alike) ? kExitOk : kExitMeasurementFailed;
}

BisectOutcome run_bisect(const BisectRequest& request, const std::vector<std::string>& command_line) {
  BisectRequest r = request;
  if (r.from_history.empty() != (r.change == 0))
    throw UsageError("options --from-history and --change: they go together (a store and a row of its changes.csv)");
  if (!r.from_history.empty()) take_change_point(r);
  if (r.good.empty() || r.bad.empty())
    throw UsageError("options --good and --bad: both are needed (or --from-history STORE --change N)");
  check_placeholders(r);
  // The ends' intervals narrowed to the equivalence margin (compare's --detect): then the ends
  // differ, or are shown alike, unless rounds run out. Counts repeat exactly and need none.
  MeasureOptions ends = r.measure;
  Bench bench{r, load_measure_matrix(ends, built_backends()), {}, {}, command_line};
  if (!ends.protocol.has("until_interval.width_percent") && !row_of(bench.matrix.protocol.measure).exact) {
    ends.protocol.give("until_interval.width_percent", bench.settings.detect * 100);
    ends.protocol.give("seed", bench.matrix.protocol.seed);
    bench.matrix = load_measure_matrix(ends, built_backends());
  }
  use_paired_protocol(bench.matrix.protocol, ends, r.confidence);
  bench.matrix.protocol.counts = false;  // each step is a verdict on the figures alone
  bench.settings.confidence = r.confidence;
  if (!r.resume.empty() && !r.out.path.empty() && r.out.path != r.resume)
    throw UsageError("options --out and --resume: the bisect goes on in the directory --resume names");
  bench.dir = prepare_output_dir(r.resume.empty() ? r.out : OutputDirectory{r.resume}, "bisect", !r.resume.empty());
  if (!std::filesystem::is_directory(bench.dir / "git")) make_output_subdirectory(bench.dir / "git");
  Bisection bisection(r, bench);
  try {
    bisection.measure_ends();
    if (bisection.changed()) {
      bisection.narrow(r.measure);
      bisection.search();
    }
  } catch (const Interrupted& e) {  // Ctrl-C: every finished step is in bisect.json already
    throw Interrupted(e.signal, fmt::format("{}; bisect: {} finished steps are kept in {}/bisect.json; go on with "
                                            "the same command and --resume {}",
                                            e.what(), bisection.steps_done(), bench.dir.string(), bench.dir.string()));
  }
  const BisectRecord& record = bisection.finish();
  write_bisect_files(record, bench.dir);
  BisectOutcome outcome{record.changed, record.ends == "same", std::nullopt, record.compares};
  if (record.changed && record.found) outcome.first_bad = record.first_bad_or_range_end;
  fmt::print("bisect: {}/bisect.md, bisect.json\n", bench.dir.string());
  return outcome;
}

}  // namespace abench
