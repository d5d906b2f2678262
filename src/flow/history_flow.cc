#include "src/flow/history_flow.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/flow/measure_setup.h"
#include "src/flow/output_directory.h"
#include "src/results/results_reader.h"
#include "src/store/changes_files.h"
#include "src/store/history_changes.h"
#include "src/store/history_report.h"
#include "src/store/history_series.h"
#include "src/store/history_store.h"
#include "src/store/series_export.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"

namespace abench {
namespace {

// DIR/history.json: the commit and branch a run was recorded with, for history rebuild.
constexpr const char* kHistoryFile = "history.json";

RunIdentity identity_in(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kHistoryFile).string();
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path)))
    throw UsageError(
        fmt::format("{}: no {} (the run was never recorded with its commit: abench history add {} "
                    "--commit REV --history STORE)",
                    dir, kHistoryFile, dir));
  const nlohmann::json j = read_json_file(path, "a history record");
  RunIdentity id;
  try {
    id.commit = commit_of_run(j.at("commit").get<std::string>());
    id.branch = j.value("branch", "");
    id.recorded_at = j.value("recorded_at", "");
  } catch (const nlohmann::json::exception&) {
    throw UsageError(fmt::format("{}: field 'commit' must be a revision's text", path));
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  }
  id.source = dir;
  return id;
}

void write_history_file(const std::filesystem::path& dir, const RunIdentity& id, const std::string& run_id) {
  const nlohmann::json record{
      {"commit", id.commit}, {"branch", id.branch}, {"run_id", run_id}, {"recorded_at", id.recorded_at}};
  write_file_atomically(dir / kHistoryFile, record.dump(2) + "\n");
}

RunResults run_in(const std::string& dir) { return load_results_below(dir, "results.json"); }

void print_outcome(const HistoryOutcome& o, const std::string& store) {
  fmt::print("{} runs recorded, {} already there; {} has {} points\n", o.recorded, o.already_there, store, o.points);
}

SeriesFilter filter_of(const ChangesRequest& r) {
  SeriesFilter f{r.variants, r.backends, r.workloads, {}, {}};
  auto numbers = [](const std::vector<std::string>& texts, const char* option) {
    std::vector<std::int64_t> values;
    for (const std::string& text : texts)
      for (const std::string& item : split_on_commas(text)) {
        if (item.empty() || item.size() > 18 || item.find_first_not_of("0123456789") != std::string::npos)
          throw UsageError(fmt::format("option {}: '{}' is not a whole number", option, printable(item)));
        values.push_back(std::stoll(item));
      }
    return values;
  };
  f.sizes = numbers(r.sizes, "--size");
  f.lives = numbers(r.lives, "--live");
  return f;
}

// Whether the change begins within the last `recent` commits its series holds.
bool is_recent(const SeriesChange& c, int recent) {
  std::vector<std::string> commits;
  for (const SeriesPoint& p : c.series->points)
    if (commits.empty() || commits.back() != p.commit) commits.push_back(p.commit);
  const auto at = std::find(commits.begin(), commits.end(), c.commit);
  return commits.end() - at <= recent;
}

}  // namespace

ChangesOutcome run_history_changes(const ChangesRequest& r) {
  const SeriesFilter filter = filter_of(r);
  HistoryStore store(r.store);
  const std::vector<Series> series = read_series(store, filter);
  if (series.empty())
    throw UsageError(fmt::format("history changes: {} holds no point of the cells asked for", r.store));
  ChangePointRule rule;
  rule.alpha = r.alpha;
  rule.min_step = r.min_step_percent / 100;
  const std::vector<SeriesChange> changes = find_changes(series, rule);
  const auto dir = prepare_output_dir(r.out, "changes");
  write_file_atomically(dir / "changes.csv", changes_csv(changes));
  const std::string markdown = changes_markdown(changes, series.size(), rule);
  write_file_atomically(dir / "changes.md", markdown);
  write_file_atomically(dir / "changes.json", changes_json(changes, series.size(), rule).dump(2) + "\n");
  if (!r.no_report) {
    try {
      write_history_report(dir, series, changes);
    } catch (const EnvironmentError& e) {
      fmt::print(stderr, "abench: history.html not drawn: {} (changes.md, .csv and .json are written)\n", e.what());
    }
  }
  ChangesOutcome outcome{series.size(), changes.size(), 0};
  for (const SeriesChange& c : changes)
    if (r.recent > 0 && !c.by_abench && c.change > 0 && is_recent(c, r.recent)) ++outcome.recent_regressions;
  fmt::print("{}\nchanges: {}/changes.md, changes.csv, changes.json{}\n", markdown, dir.string(),
             r.no_report ? "" : ", history.html");
  if (outcome.recent_regressions > 0)
    fmt::print("{} regressions begin within the last {} commits of their cells\n", outcome.recent_regressions,
               r.recent);
  return outcome;
}

std::optional<RunIdentity> prepare_recording(const HistoryRecording& recording) {
  if (recording.store.empty()) {
    if (!recording.commit.empty() || !recording.branch.empty())
      throw UsageError("option --commit/--branch: they say what --history records; give --history STORE too");
    return std::nullopt;
  }
  RunIdentity id{commit_of_run(recording.commit), branch_of_run(recording.branch), "", ""};
  HistoryStore store(recording.store);  // made or migrated now: a store abench cannot use refuses before a run
  return id;
}

void record_directory(const HistoryRecording& recording, RunIdentity id, const std::filesystem::path& dir) {
  const RunResults run = run_in(dir.string());
  id.source = dir.string();
  id.recorded_at = recording_time();
  HistoryStore store(recording.store);
  if (!store.record(run, id)) {
    fmt::print("history: {} holds this run already; nothing recorded\n", recording.store);
    return;
  }
  write_history_file(dir, id, run.run_id);
  fmt::print("history: recorded in {} with commit {}\n", recording.store, id.commit);
}

std::size_t run_history_export(const ChangesRequest& r) {
  const SeriesFilter filter = filter_of(r);
  HistoryStore store(r.store);
  const std::vector<Series> series = read_series(store, filter);
  if (series.empty())
    throw UsageError(fmt::format("history export: {} holds no point of the cells asked for", r.store));
  const auto dir = prepare_output_dir(r.out, "series");
  const std::vector<std::string> names = series_file_names(series);
  for (std::size_t i = 0; i < series.size(); ++i) write_file_atomically(dir / names[i], series_csv(series[i]));
  fmt::print("{} series written to {}/ (one CSV a cell: time, commit, the figure, best)\n", series.size(),
             dir.string());
  return series.size();
}

HistoryOutcome run_history_add(const HistoryRequest& r) {
  if (r.dirs.empty()) throw UsageError("history add: name the results directories to record");
  const std::string commit = commit_of_run(r.commit);
  const std::string branch = branch_of_run(r.branch);
  std::vector<RunResults> runs;
  for (const std::string& dir : r.dirs) runs.push_back(run_in(dir));  // every one read before anything is written
  HistoryStore store(r.store);
  HistoryOutcome outcome;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunIdentity id{commit, branch, r.dirs[i], recording_time()};
    const bool recorded = store.record(runs[i], id);
    (recorded ? outcome.recorded : outcome.already_there)++;
    if (recorded) write_history_file(r.dirs[i], id, runs[i].run_id);
  }
  outcome.points = store.point_count();
  print_outcome(outcome, r.store);
  return outcome;
}

HistoryOutcome run_history_rebuild(const HistoryRequest& r) {
  std::vector<RunIdentity> ids;
  for (const std::string& dir : r.dirs) ids.push_back(identity_in(dir));  // all checked before the store is emptied
  HistoryStore store(r.store);
  HistoryOutcome outcome;
  store.rebuild([&, i = std::size_t{0}](RunResults& run, RunIdentity& id) mutable {
    if (i == ids.size()) return false;
    run = run_in(r.dirs[i]);
    id = ids[i++];
    return true;
  });
  outcome.recorded = static_cast<int>(store.run_count());
  outcome.points = store.point_count();
  print_outcome(outcome, r.store);
  return outcome;
}

}  // namespace abench
