#include "src/store/postgres_connection.h"

#include <libpq-fe.h>

#include <cstdlib>

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

// The types the schema uses, by their fixed OIDs (PostgreSQL's pg_type.dat).
constexpr Oid kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701;
// Writers take this transaction-scoped lock first: one writer at a time creates the schema
// or records a run, so concurrent first uses never race on CREATE TABLE.
constexpr long long kWriterLock = 0x61626e6368;  // "abnch"

class PostgresConnection final : public SqlConnection {
 public:
  explicit PostgresConnection(std::string url) : url_(std::move(url)), db_(PQconnectdb(url_.c_str())) {
    if (!db_ || PQstatus(db_) != CONNECTION_OK) {
      const std::string why = db_ ? PQerrorMessage(db_) : "out of memory";
      PQfinish(db_);
      throw EnvironmentError(fmt::format("history store {}: cannot connect: {}", shown(), trimmed(why)));
    }
    run("SET client_min_messages TO warning", {});
  }
  ~PostgresConnection() override { PQfinish(db_); }
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  std::vector<SqlRow> run(std::string_view sql, const std::vector<SqlValue>& parameters) override {
    std::vector<std::string> texts(parameters.size());
    std::vector<const char*> values(parameters.size(), nullptr);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      const SqlValue& v = parameters[i];
      if (std::holds_alternative<std::nullptr_t>(v)) continue;
      if (const auto* n = std::get_if<std::int64_t>(&v)) texts[i] = std::to_string(*n);
      if (const auto* d = std::get_if<double>(&v)) texts[i] = fmt::format("{:.17g}", *d);
      if (const auto* s = std::get_if<std::string>(&v)) texts[i] = *s;
      values[i] = texts[i].c_str();
    }
    const std::string statement(sql);
    PGresult* result = PQexecParams(db_, statement.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                    nullptr, nullptr, 0);
    const ExecStatusType status = PQresultStatus(result);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const std::string why = PQresultErrorMessage(result);
      PQclear(result);
      throw EnvironmentError(fmt::format("history store {}: a statement failed: {}", shown(), trimmed(why)));
    }
    std::vector<SqlRow> rows;
    for (int r = 0; r < PQntuples(result); ++r) rows.push_back(row_of(result, r));
    PQclear(result);
    return rows;
  }
  void begin_writing() override {
    run("BEGIN", {});
    run("SELECT pg_advisory_xact_lock($1)", {static_cast<std::int64_t>(kWriterLock)});
  }
  void commit() override { run("COMMIT", {}); }
  void roll_back() noexcept override { PQclear(PQexec(db_, "ROLLBACK")); }
  std::string where() const override { return shown(); }

 private:
  static std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return printable(text);
  }
  // The URL without its password, for messages.
  std::string shown() const {
    const auto scheme = url_.find("://"), at = url_.find('@');
    if (scheme == std::string::npos || at == std::string::npos) return printable(url_);
    const auto colon = url_.find(':', scheme + 3);
    if (colon == std::string::npos || colon > at) return printable(url_);
    return printable(url_.substr(0, colon) + ":***" + url_.substr(at));
  }
  static SqlRow row_of(PGresult* result, int r) {
    SqlRow row;
    for (int c = 0; c < PQnfields(result); ++c) {
      if (PQgetisnull(result, r, c)) {
        row.emplace_back(nullptr);
        continue;
      }
      const char* text = PQgetvalue(result, r, c);
      const Oid type = PQftype(result, c);
      if (type == kInt8 || type == kInt4 || type == kInt2)
        row.emplace_back(static_cast<std::int64_t>(std::strtoll(text, nullptr, 10)));
      else if (type == kFloat8 || type == kFloat4)
        row.emplace_back(std::strtod(text, nullptr));
      else
        row.emplace_back(std::string(text, static_cast<std::size_t>(PQgetlength(result, r, c))));
    }
    return row;
  }

  std::string url_;
  PGconn* db_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_postgres(const std::string& url) {
  return std::make_unique<PostgresConnection>(url);
}

}  // namespace abench
