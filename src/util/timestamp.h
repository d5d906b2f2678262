// The time now as text, in UTC: names of result directories and the times results record.
#pragma once

#include <string>

namespace abench {

// strftime's format, e.g. "%Y-%m-%dT%H:%M:%SZ".
std::string utc_timestamp(const char* format);

}  // namespace abench
