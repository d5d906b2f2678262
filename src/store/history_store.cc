#include "src/store/history_store.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/store/history_schema.h"
#include "src/store/postgres_connection.h"
#include "src/store/sqlite_connection.h"
#include "src/util/errors.h"
#include "src/plan/protocol_fields.h"
#include "src/util/text.h"

namespace abench {

std::unique_ptr<SqlConnection> connect_to_store(const std::string& store) {
  if (store.empty()) throw UsageError("option --history: empty (allowed: a SQLite file's path or a postgresql:// URL)");
  if (store.starts_with("postgresql://") || store.starts_with("postgres://")) return open_postgres(store);
  if (store.find("://") != std::string::npos)
    throw UsageError(fmt::format("option --history: '{}' is neither a file's path nor a postgresql:// URL",
                                 printable(store.substr(0, 80))));
  return open_sqlite(store);
}

namespace {

// A transaction that writes, rolled back unless committed.
class Writing {
 public:
  explicit Writing(SqlConnection& db) : db_(db) { db_.begin_writing(); }
  ~Writing() {
    if (!done_) db_.roll_back();
  }
  Writing(const Writing&) = delete;
  Writing& operator=(const Writing&) = delete;
  void commit() {
    db_.commit();
    done_ = true;
  }

 private:
  SqlConnection& db_;
  bool done_ = false;
};

std::int64_t count_of(SqlConnection& db, std::string_view sql) {
  const auto rows = db.run(sql, {});
  return rows.empty() ? 0 : std::get<std::int64_t>(rows.front().front());
}

nlohmann::json variants_json(const RunResults& run) {
  nlohmann::json variants = nlohmann::json::array();
  for (std::size_t v = 0; v < run.plan.variants.size(); ++v) {
    nlohmann::json entry{{"label", run.plan.variants[v].label()}, {"backend", run.plan.variants[v].backend}};
    if (const WorkerHello* hello = hello_of_variant(run, v)) put_stored_hello(entry, *hello);
    variants.push_back(std::move(entry));
  }
  return variants;
}

void insert_points(SqlConnection& db, const RunResults& run) {
  for (const CellRecord& cell : run.cells) {
    const CellSummary& s = cell.summary;
    if (!s.ns_per_op) continue;  // failed, refused or not measured: no figure to keep
    const CellSpec& spec = cell.cell.spec;
    nlohmann::json process_figures = nlohmann::json::array();
    for (const ProcessMeasurement& p : cell.processes) process_figures.push_back(p.median_ns_per_op);
    db.run(
        "INSERT INTO points VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        {run.run_id, run.plan.variants[cell.cell.variant].label(), run.plan.variants[cell.cell.variant].backend,
         std::string(name_of(spec.policy)), std::string(name_of(spec.workload)), static_cast<std::int64_t>(spec.size),
         static_cast<std::int64_t>(spec.alignment.requested), static_cast<std::int64_t>(spec.alignment.preferred),
         static_cast<std::int64_t>(spec.live), *s.ns_per_op, s.best ? SqlValue(*s.best) : SqlValue(nullptr),
         process_figures.dump(), cell.counts ? SqlValue(nlohmann::json(*cell.counts).dump()) : SqlValue(nullptr)});
  }
}

std::string text_fact(const nlohmann::json& facts, const char* key) {
  const auto found = facts.find(key);
  return found != facts.end() && found->is_string() ? found->get<std::string>() : "";
}

// The first CI variable of `names` that is set and not empty.
std::string from_environment(std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (const char* value = std::getenv(name); value && *value) return value;
  return "";
}

}  // namespace

HistoryStore::HistoryStore(const std::string& store) : db_(connect_to_store(store)) { migrate(); }

void HistoryStore::migrate() {
  Writing writing(*db_);
  db_->run("CREATE TABLE IF NOT EXISTS abench_schema (version BIGINT NOT NULL)", {});
  const auto rows = db_->run("SELECT version FROM abench_schema", {});
  const std::int64_t version = rows.empty() ? 0 : std::get<std::int64_t>(rows.front().front());
  if (version > kHistorySchemaVersion)
    throw UsageError(
        fmt::format("history store {}: its schema is version {}, from a newer abench (this one writes "
                    "version {}); nothing was written",
                    db_->where(), version, kHistorySchemaVersion));
  if (version == kHistorySchemaVersion) return;  // rolled back: nothing to write
  for (std::int64_t v = version; v < kHistorySchemaVersion; ++v) {
    std::string_view statements = kHistoryMigrations[static_cast<std::size_t>(v)];
    while (!statements.empty()) {  // one statement at a time: SQLite prepares only the first
      const auto end = statements.find(';');
      const std::string_view statement = statements.substr(0, end);
      if (statement.find_first_not_of(" \n") != std::string_view::npos) db_->run(statement, {});
      statements = end == std::string_view::npos ? std::string_view() : statements.substr(end + 1);
    }
  }
  if (rows.empty())
    db_->run("INSERT INTO abench_schema VALUES ($1)", {std::int64_t{kHistorySchemaVersion}});
  else
    db_->run("UPDATE abench_schema SET version = $1", {std::int64_t{kHistorySchemaVersion}});
  writing.commit();
}

bool HistoryStore::record(const RunResults& run, const RunIdentity& id) {
  Writing writing(*db_);
  if (!insert(run, id)) return false;
  writing.commit();
  return true;
}

bool HistoryStore::insert(const RunResults& run, const RunIdentity& id) {
  if (run.run_id.empty()) throw UsageError(fmt::format("{}: results.json has no run_id to record", id.source));
  if (!db_->run("SELECT 1 FROM runs WHERE run_key = $1", {run.run_id}).empty()) return false;
  db_->run("INSERT INTO runs VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
           {run.run_id, id.commit, id.branch, id.recorded_at.empty() ? recording_time() : id.recorded_at,
            run.started_at, run.conditions.machine_fingerprint, run.conditions.architecture,
            text_fact(run.conditions.facts, "abench_git_revision"), std::string(name_of(run.protocol.measure)),
            protocol_fields_json(run.protocol).dump(), variants_json(run).dump(), id.source});
  insert_points(*db_, run);
  return true;
}

void HistoryStore::rebuild(const std::function<bool(RunResults&, RunIdentity&)>& next) {
  Writing writing(*db_);
  db_->run("DELETE FROM points", {});
  db_->run("DELETE FROM runs", {});
  RunResults run;
  RunIdentity id;
  while (next(run, id)) insert(run, id);
  writing.commit();
}

std::int64_t HistoryStore::run_count() { return count_of(*db_, "SELECT COUNT(*) FROM runs"); }
std::int64_t HistoryStore::point_count() { return count_of(*db_, "SELECT COUNT(*) FROM points"); }

std::string recording_time() {
  const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(since_epoch).count();
  const std::time_t seconds = static_cast<std::time_t>(micros / 1000000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:06d}Z", text, micros % 1000000);
}

std::string commit_of_run(const std::string& given) {
  const std::string commit =
      !given.empty() ? given : from_environment({"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT"});
  if (commit.empty())
    throw UsageError(
        "option --commit: no commit to record the run with (give --commit REV, or run where the CI names it: "
        "GITHUB_SHA, CI_COMMIT_SHA, BUILDKITE_COMMIT, GIT_COMMIT)");
  const bool control = std::any_of(commit.begin(), commit.end(), [](unsigned char c) { return c == 0x7f || c <= ' '; });
  if (commit.size() > 200 || control || commit.front() == '-')
    throw UsageError(
        fmt::format("option --commit: '{}' is not a revision (allowed: a commit hash or a ref's name, "
                    "without spaces, at most 200 characters)",
                    printable(commit.substr(0, 60))));
  return commit;
}

std::string branch_of_run(const std::string& given) {
  return !given.empty() ? given : from_environment({"GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BUILDKITE_BRANCH"});
}

}  // namespace abench
