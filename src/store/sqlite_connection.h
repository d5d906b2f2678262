// The embedded history store: one SQLite file (Debian's libsqlite3), in WAL mode so that
// readers never wait for a writer, writers waiting for each other up to a minute.
#pragma once

#include <memory>
#include <string>

#include "src/store/sql_connection.h"

namespace abench {

// Opens (creating) the file at `path`. Throws EnvironmentError (exit 4) when it cannot.
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path);

}  // namespace abench
