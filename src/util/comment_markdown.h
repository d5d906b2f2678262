// A Markdown document shaped for a pull-request comment (compare.md, gate.md, the step
// summary): the headline first, the rows a reviewer must see next, everything else folded in
// <details>, and the whole under GitHub's comment limit. Where rows must go to fit, the last
// folded tables lose their last rows first, and a line says how many and where they are.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace abench {

// GitHub refuses a comment (and truncates a step summary) past this many characters.
inline constexpr std::size_t kCommentLimit = 65536;

struct CommentSection {
  std::string summary;  // folded: the <summary> line; shown: a heading ("" for none)
  bool folded = false;
  std::string before;  // Markdown above the table (trusted: the caller escaped what it took in)
  std::vector<std::vector<std::string>> table;  // table[0] is the header; cells are escaped here
  std::vector<bool> numeric;                    // right-aligned columns
  std::string after;                            // Markdown below the table
};

// A section shown under a heading ("" for none), and one folded under a <summary>; `before`
// is the Markdown above its table.
inline CommentSection shown_section(std::string heading, std::string before = "") {
  CommentSection s;
  s.summary = std::move(heading);
  s.before = std::move(before);
  return s;
}
inline CommentSection folded_section(std::string summary, std::string before = "") {
  CommentSection s = shown_section(std::move(summary), std::move(before));
  s.folded = true;
  return s;
}

// headline and sections in order. where_the_rest_is names the file that holds every row
// ("compare.csv"), for the line that says rows were cut.
std::string comment_markdown(const std::string& headline, const std::vector<CommentSection>& sections,
                             const std::string& where_the_rest_is, std::size_t limit = kCommentLimit);

// What a terminal shows of such a document: everything before the first folded section,
// and a line naming the file that holds the rest.
std::string terminal_part(const std::string& markdown, const std::string& file = "compare.md");

}  // namespace abench
