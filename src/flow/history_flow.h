// abench history: runs recorded into a history store (src/store/history_store.h) and the
// store rebuilt from the results directories, which stay the record (docs/history.md).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/store/history_store.h"

namespace abench {

// --history STORE on run, compare and gate: the run recorded once its results are written.
struct HistoryRecording {
  std::string store;  // "": not recorded
  std::string commit, branch;
};

// Before anything is measured: the commit named (else refused, exit 2) and the store opened
// (its schema made or migrated; an unreachable one: exit 4). Nothing when no store is named.
std::optional<RunIdentity> prepare_recording(const HistoryRecording& recording);
// After the results are written: DIR's run recorded, and DIR/history.json beside it.
void record_directory(const HistoryRecording& recording, RunIdentity identity, const std::filesystem::path& dir);

struct HistoryRequest {
  std::string store;              // --history STORE
  std::vector<std::string> dirs;  // results directories
  std::string commit, branch;     // add: --commit, --branch (else the CI's)
};

// history changes: the cells' change points, written to `out`.
struct ChangesRequest {
  std::string store;
  OutputDirectory out;                                                   // default results/<time>-changes
  std::vector<std::string> variants, backends, workloads, sizes, lives;  // cell filters (empty: all)
  double alpha = 0.001;
  double min_step_percent = 1;  // the floor of every cell's detectable change
  int recent = 0;               // > 0: a regression in the last `recent` commits of a cell fails
  bool no_report = false;       // changes: no history.html and report/
};

struct ChangesOutcome {
  std::size_t series = 0, changes = 0, recent_regressions = 0;
};

struct HistoryOutcome {
  int recorded = 0;       // runs written
  int already_there = 0;  // runs the store held (add)
  long long points = 0;   // points in the store afterwards
};

// Records each directory's run with the commit (DIR/history.json keeps it for rebuild).
HistoryOutcome run_history_add(const HistoryRequest& request);
// Empties the store and records every directory again, by its history.json, in one transaction.
HistoryOutcome run_history_rebuild(const HistoryRequest& request);
// Finds every cell's change points and writes changes.md, changes.csv and changes.json.
ChangesOutcome run_history_changes(const ChangesRequest& request);
// Writes each selected series as the CSV Otava reads, one file a cell (the request's rule
// fields unused); returns how many.
std::size_t run_history_export(const ChangesRequest& request);

}  // namespace abench
