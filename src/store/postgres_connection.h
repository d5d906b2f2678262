// A team's shared history store: a PostgreSQL database reached by a postgresql:// URL
// through libpq (Debian's libpq), written to by many CI runners at once.
#pragma once

#include <memory>
#include <string>

#include "src/store/sql_connection.h"

namespace abench {

// Connects to `url`. Throws EnvironmentError (exit 4) when the server cannot be reached.
std::unique_ptr<SqlConnection> open_postgres(const std::string& url);

}  // namespace abench
