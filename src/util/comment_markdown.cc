#include "src/util/comment_markdown.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/util/text.h"
#include "src/util/text_table.h"

namespace abench {
namespace {

// The section with its first `rows` table rows (after the header), and a line for the rest.
std::string render(const CommentSection& s, std::size_t rows, const std::string& where_the_rest_is) {
  std::string body = s.before.empty() ? "" : s.before + "\n";
  if (s.table.size() > 1) {
    std::vector<std::vector<std::string>> kept(s.table.begin(), s.table.begin() + static_cast<long>(rows + 1));
    body += markdown_table(kept, s.numeric);
    if (const std::size_t cut = s.table.size() - 1 - rows; cut > 0)
      body += fmt::format("\n{} more rows are not shown here (GitHub's comment limit): {} holds every one.\n", cut,
                          markdown_text(where_the_rest_is));
  }
  if (!s.after.empty()) body += "\n" + s.after;
  while (!body.empty() && body.back() == '\n') body.pop_back();
  body += '\n';
  // A blank line after <summary> and before </details>: GitHub then renders the Markdown inside.
  if (s.folded) return fmt::format("<details><summary>{}</summary>\n\n{}\n</details>\n\n", s.summary, body);
  if (body == "\n") body.clear();
  return (s.summary.empty() ? "" : "#### " + s.summary + "\n\n") + body + (body.empty() ? "" : "\n");
}

std::size_t rows_of(const CommentSection& s) { return s.table.empty() ? 0 : s.table.size() - 1; }

}  // namespace

std::string comment_markdown(const std::string& headline, const std::vector<CommentSection>& sections,
                             const std::string& where_the_rest_is, std::size_t limit) {
  std::vector<std::size_t> rows;
  for (const CommentSection& s : sections) rows.push_back(rows_of(s));
  auto whole = [&] {
    std::string out = headline;
    if (!out.empty() && out.back() != '\n') out += '\n';
    out += '\n';
    for (std::size_t i = 0; i < sections.size(); ++i) out += render(sections[i], rows[i], where_the_rest_is);
    while (out.size() > 1 && out.ends_with("\n\n")) out.pop_back();
    return out;
  };
  std::string out = whole();
  // Folded sections give up rows first, the last of them first; shown ones only after.
  for (const bool folded : {true, false})
    for (std::size_t i = sections.size(); i-- > 0 && out.size() > limit;) {
      if (sections[i].folded != folded) continue;
      while (rows[i] > 0 && out.size() > limit) {
        // Drop about as many rows as the overflow needs, at least one.
        const std::size_t row_size = std::max<std::size_t>(1, out.size() / std::max<std::size_t>(1, rows[i] + 1));
        const std::size_t drop = std::clamp<std::size_t>((out.size() - limit) / row_size + 1, 1, rows[i]);
        rows[i] -= drop;
        out = whole();
      }
    }
  return out;
}

std::string terminal_part(const std::string& markdown, const std::string& file) {
  const std::size_t fold = markdown.find("<details>");
  if (fold == std::string::npos) return markdown;
  return markdown.substr(0, fold) + fmt::format("(every cell, the method and what each side ran: {})\n", file);
}

}  // namespace abench
