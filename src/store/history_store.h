// A memory of results (docs/history.md): every run recorded with its commit, per cell and
// variant the figure, the best sample, each process's figure and the counts, in a real
// database: a SQLite file, or a PostgreSQL server shared by CI runners.
// The results directories stay the record: a store is rebuilt from them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "src/results/results.h"
#include "src/store/sql_connection.h"

namespace abench {

// Who and what a recorded run was: the commit it measured (never empty), its branch ("" not
// known), where its results directory was.
struct RunIdentity {
  std::string commit;
  std::string branch;
  std::string source;
  // UTC to the microsecond: the order of a cell's series. "" now; a rebuild keeps the original.
  std::string recorded_at;
};

// The time now, UTC, to the microsecond ("2026-12-06T21:04:05.123456Z"): sorts as it happened.
std::string recording_time();

inline constexpr int kHistorySchemaVersion = 1;

class HistoryStore {
 public:
  // Opens the store STORE names (a postgresql:// URL, else a SQLite file's path), creating
  // or migrating its schema.
  // UsageError for a STORE abench cannot use or a schema from a newer abench (exit 2),
  // EnvironmentError when it cannot be reached (exit 4).
  explicit HistoryStore(const std::string& store);
  // Records the run once: false when a run with its run_id is already there (nothing written).
  bool record(const RunResults& run, const RunIdentity& identity);
  // Empties the store and records each run `next` gives (false: no more), in one
  // transaction: a rebuild that fails leaves the store as it was.
  void rebuild(const std::function<bool(RunResults&, RunIdentity&)>& next);
  std::int64_t run_count();
  std::int64_t point_count();
  SqlConnection& connection() { return *db_; }

 private:
  void migrate();
  bool insert(const RunResults& run, const RunIdentity& identity);  // inside a transaction
  std::unique_ptr<SqlConnection> db_;
};

// A connection to STORE without touching its schema (UsageError, EnvironmentError as above).
std::unique_ptr<SqlConnection> connect_to_store(const std::string& store);

// The commit of a run: `given` where it is, else the CI's (GITHUB_SHA, CI_COMMIT_SHA,
// BUILDKITE_COMMIT, GIT_COMMIT); UsageError when none says one or it is not a revision's text.
std::string commit_of_run(const std::string& given);
// The branch: `given`, else the CI's (GITHUB_REF_NAME, CI_COMMIT_REF_NAME, BUILDKITE_BRANCH); "" none.
std::string branch_of_run(const std::string& given);

}  // namespace abench
