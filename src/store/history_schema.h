// The history store's schema, as migrations: migration N takes a store from version N-1 to
// N. A store records its version; one newer than this abench's is refused, never written.
// The SQL is what SQLite and PostgreSQL both take.
#pragma once

#include <array>
#include <string_view>

namespace abench {

// clang-format off
inline constexpr std::array<std::string_view, 1> kHistoryMigrations{
    // 1: runs and their points.
    "CREATE TABLE runs ("
    "  run_key TEXT PRIMARY KEY,"        // results.json's run_id
    "  commit_rev TEXT NOT NULL,"
    "  branch TEXT NOT NULL,"
    "  recorded_at TEXT NOT NULL,"       // UTC, ISO 8601: the order a branch's runs were recorded in
    "  started_at TEXT NOT NULL,"
    "  machine TEXT NOT NULL,"           // conditions.machine_fingerprint
    "  architecture TEXT NOT NULL,"
    "  abench_revision TEXT NOT NULL,"   // what measured it: a change here is abench's, not the library's
    "  measure TEXT NOT NULL,"
    "  protocol TEXT NOT NULL,"          // results.json's protocol, as JSON
    "  variants TEXT NOT NULL,"          // label, backend, allocator version, entry set, as JSON
    "  source TEXT NOT NULL);"
    "CREATE TABLE points ("
    "  run_key TEXT NOT NULL REFERENCES runs(run_key) ON DELETE CASCADE,"
    "  variant TEXT NOT NULL, backend TEXT NOT NULL, policy TEXT NOT NULL, workload TEXT NOT NULL,"
    "  size BIGINT NOT NULL, requested BIGINT NOT NULL, preferred BIGINT NOT NULL, live BIGINT NOT NULL,"
    "  figure DOUBLE PRECISION NOT NULL,"  // the median of the process medians
    "  best DOUBLE PRECISION,"
    "  process_figures TEXT NOT NULL,"     // each process's median, as a JSON array
    "  counts TEXT,"                       // the counting run's, as JSON; null: not counted
    "  PRIMARY KEY (run_key, variant, workload, policy, size, requested, preferred, live));"
    "CREATE INDEX points_by_cell ON points (variant, workload, policy, size, requested, preferred, live);",
};
// clang-format on

}  // namespace abench
