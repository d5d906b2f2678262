#include "src/util/csv.h"

#include <cstdlib>
#include <string_view>

namespace abench {

namespace {

// A whole number or decimal as abench writes figures ("-0.052", "+3", "1e-05").
bool is_number(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && text.find_first_of("xXnNiI") == std::string::npos;
}

}  // namespace

std::string csv_field(const std::string& text) {
  // OWASP's rule for CSV injection: a text cell a spreadsheet would take for a formula (it
  // starts with = + - @, a tab or a carriage return) starts with a ' instead; a figure
  // such as -0.05 stays a number, and a lone "-" (no figure) is no formula either.
  std::string field = text;
  if (!field.empty() && std::string_view("=+-@\t\r").find(field.front()) != std::string_view::npos &&
      !is_number(field) && field != "-")
    field = "'" + field;
  if (field.find_first_of(",\"\n\r") == std::string::npos) return field;
  std::string quoted = "\"";
  for (char c : field) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string row;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) row += ',';
    row += csv_field(fields[i]);
  }
  return row + "\n";
}

}  // namespace abench
