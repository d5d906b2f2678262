#include "src/util/text_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/util/text.h"

namespace abench {

std::string aligned_columns(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric) {
  std::vector<std::size_t> width;
  for (const auto& row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t i = 0; i < row.size(); ++i) {
      const bool right = i < numeric.size() && numeric[i];
      // The last column is not padded on the right: no trailing spaces.
      line += right                 ? fmt::format("{:>{}}", row[i], width[i])
              : i + 1 == row.size() ? row[i]
                                    : fmt::format("{:<{}}", row[i], width[i]);
      if (i + 1 < row.size()) line += "  ";
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string markdown_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric) {
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += "|";
    for (const std::string& cell : rows[r]) out += " " + markdown_text(cell) + " |";
    out += "\n";
    if (r != 0) continue;
    out += "|";
    for (std::size_t i = 0; i < rows[0].size(); ++i) out += i < numeric.size() && numeric[i] ? "--:|" : "---|";
    out += "\n";
  }
  return out;
}

}  // namespace abench
