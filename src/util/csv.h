// The one CSV writer (RFC 4180): every field quoted when it holds a comma, a quote or a
// line break, quotes doubled; rows end in CRLF-free "\n" as the RFC allows readers to take.
#pragma once

#include <string>
#include <vector>

namespace abench {

std::string csv_field(const std::string& text);
// The fields joined by commas, each through csv_field, and a newline.
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace abench
