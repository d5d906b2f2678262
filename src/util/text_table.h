// A plain-text table for the terminal: each column as wide as its widest cell, figures
// right-aligned, two spaces between columns, no trailing spaces.
#pragma once

#include <string>
#include <vector>

namespace abench {

// rows[0] is the header; numeric[i]: column i is right-aligned (a missing entry: left).
std::string aligned_columns(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric);
// The same rows as a Markdown table (what compare.md and PR comments hold), each cell's text
// escaped (markdown_text, src/util/text.h).
std::string markdown_table(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric);

}  // namespace abench
