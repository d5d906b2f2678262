// A connection to a history store's database, in the SQL both of abench's stores speak
// (SQLite and PostgreSQL): parameters written $1, $2, ..., types TEXT, BIGINT and DOUBLE
// PRECISION. The store's code (history_store.h) is written once against this.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace abench {

using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  // Runs one statement; a query's rows are returned. Throws EnvironmentError naming the store (exit 4).
  virtual std::vector<SqlRow> run(std::string_view sql, const std::vector<SqlValue>& parameters = {}) = 0;
  // A transaction that writes: other writers wait for it (SQLite: BEGIN IMMEDIATE, with a
  // busy timeout; PostgreSQL: BEGIN), and everything in it lands or nothing does.
  virtual void begin_writing() = 0;
  virtual void commit() = 0;
  virtual void roll_back() noexcept = 0;
  virtual std::string where() const = 0;  // the store, as the user named it
};

}  // namespace abench
