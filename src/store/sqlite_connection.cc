#include "src/store/sqlite_connection.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {
namespace {

// A writer that finds the file locked waits this long before giving up: runs on one machine
// record in milliseconds, so only a stuck process holds a lock this long.
constexpr int kBusyTimeoutMs = 60000;

class SqliteConnection final : public SqlConnection {
 public:
  explicit SqliteConnection(std::string path) : path_(std::move(path)) {
    try {
      // Not through a symbolic link: a store is written, and a link could point it anywhere.
      if (sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW,
                          nullptr) != SQLITE_OK)
        fail("cannot open it");
      sqlite3_busy_timeout(db_, kBusyTimeoutMs);
      run("PRAGMA journal_mode=WAL", {});
      run("PRAGMA foreign_keys=ON", {});
    } catch (...) {
      sqlite3_close_v2(db_);
      throw;
    }
  }
  ~SqliteConnection() override { sqlite3_close_v2(db_); }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  std::vector<SqlRow> run(std::string_view sql, const std::vector<SqlValue>& parameters) override {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &statement, nullptr) != SQLITE_OK)
      fail("a statement failed");
    std::vector<SqlRow> rows;
    try {
      bind(statement, parameters);
      for (int step = sqlite3_step(statement); step != SQLITE_DONE; step = sqlite3_step(statement)) {
        if (step != SQLITE_ROW) fail("a statement failed");
        rows.push_back(row_of(statement));
      }
    } catch (...) {
      sqlite3_finalize(statement);
      throw;
    }
    sqlite3_finalize(statement);
    return rows;
  }
  void begin_writing() override { run("BEGIN IMMEDIATE", {}); }
  void commit() override { run("COMMIT", {}); }
  void roll_back() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }
  std::string where() const override { return path_; }

 private:
  [[noreturn]] void fail(std::string_view what) const {
    throw EnvironmentError(
        fmt::format("history store {}: {}: {}", path_, what, db_ ? sqlite3_errmsg(db_) : "out of memory"));
  }
  void bind(sqlite3_stmt* statement, const std::vector<SqlValue>& parameters) {
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const int at = static_cast<int>(i) + 1;
      const SqlValue& v = parameters[i];
      int rc = SQLITE_OK;
      if (std::holds_alternative<std::nullptr_t>(v)) rc = sqlite3_bind_null(statement, at);
      if (const auto* n = std::get_if<std::int64_t>(&v)) rc = sqlite3_bind_int64(statement, at, *n);
      if (const auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(statement, at, *d);
      if (const auto* s = std::get_if<std::string>(&v))
        rc = sqlite3_bind_text(statement, at, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      if (rc != SQLITE_OK) fail("a value could not be bound");
    }
  }
  static SqlRow row_of(sqlite3_stmt* statement) {
    SqlRow row;
    for (int c = 0; c < sqlite3_column_count(statement); ++c) {
      switch (sqlite3_column_type(statement, c)) {
        case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(statement, c))); break;
        case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(statement, c)); break;
        case SQLITE_NULL: row.emplace_back(nullptr); break;
        default:
          row.emplace_back(std::string(reinterpret_cast<const char*>(sqlite3_column_text(statement, c)),
                                       static_cast<std::size_t>(sqlite3_column_bytes(statement, c))));
      }
    }
    return row;
  }

  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path) { return std::make_unique<SqliteConnection>(path); }

}  // namespace abench
