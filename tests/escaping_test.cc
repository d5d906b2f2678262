// What abench prints from someone else's text (labels, allocator versions, cell errors,
// warnings) stays text where it lands: Markdown (compare.md, gate.md, the step summary) and
// CSV (results.csv, compare.csv).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "src/util/csv.h"
#include "src/util/text.h"
#include "src/verdict/compare.h"
#include "src/verdict/gate.h"
#include "src/verdict/pairing.h"
#include "tests/synthetic_results.h"

namespace abench {
namespace {

const std::string kPayload =
    "E|V|I|L\n\n## FAKE PASS <img src=x onerror=alert(1)> [x](http://evil) @admin `x` ~~y~~ &#60;";

// Pipes that end a cell: not preceded by a backslash.
int cell_bars(const std::string& line) {
  int bars = 0;
  for (std::size_t i = 0; i < line.size(); ++i) bars += line[i] == '|' && (i == 0 || line[i - 1] != '\\');
  return bars;
}

void expect_inert(const std::string& markdown) {
  std::istringstream lines(markdown);
  std::string line;
  int table_bars = -1;
  while (std::getline(lines, line)) {
    EXPECT_FALSE(line.starts_with("## FAKE")) << line;
    if (line.starts_with("|")) {
      if (table_bars < 0) table_bars = cell_bars(line);
      EXPECT_EQ(cell_bars(line), table_bars) << line;  // no cell split, none added
    } else {
      table_bars = -1;  // the next table has its own header (compare.md has several)
    }
  }
  // Each payload's first character comes only escaped: "\\<img" renders as text.
  for (const std::string raw : {"<img", "](http", "@admin", "`x`", "~~y", "&#60;"})
    for (std::size_t at = markdown.find(raw); at != std::string::npos; at = markdown.find(raw, at + 1))
      EXPECT_TRUE(at > 0 && markdown[at - 1] == '\\') << raw << " unescaped at " << at;
}

TEST(Escaping, AMarkdownPayloadInLabelsAllocatorsErrorsAndWarningsStaysText) {
  RunResults r = testing::synthetic_compare(6, 1.1);
  r.plan.variants[0].name = kPayload;
  r.cells[static_cast<std::size_t>(r.plan.partner[1])].failures.push_back(kPayload);
  resummarize_all(r);
  Comparison c = compare_results(r, VerdictSettings{});
  c.baseline_allocators = {kPayload};
  c.candidate_allocators = {kPayload};
  c.pair_backends = {kPayload};
  c.warnings.push_back(kPayload);
  const std::string md = comparison_markdown(c);
  ASSERT_NE(md.find("E\\|V\\|I\\|L"), std::string::npos) << md;  // there, as text
  expect_inert(md);

  GateVerdict v = evaluate_gate(pair_sides(r), GateRules{}, {}, VerdictSettings{});
  v.notes.push_back(kPayload);
  v.warnings.push_back(kPayload);
  for (GateCell& cell : v.cells) cell.key = kPayload;
  expect_inert(gate_markdown(v));
}

TEST(Escaping, CsvCellsASpreadsheetWouldTakeForAFormulaStartWithAQuoteAndFiguresStayNumbers) {
  EXPECT_EQ(csv_field("=1+2+cmd|' /C calc'!A0"), "'=1+2+cmd|' /C calc'!A0");
  EXPECT_EQ(csv_field("+1+2"), "'+1+2");
  EXPECT_EQ(csv_field("@SUM(A1)"), "'@SUM(A1)");
  EXPECT_EQ(csv_field("-1+cmd"), "'-1+cmd");
  EXPECT_EQ(csv_field("\tx"), "'\tx");
  EXPECT_EQ(csv_field("=a,b"), "\"'=a,b\"");
  for (const char* figure : {"-0.052", "+3", "-1e-05", "12.5", "-"})
    EXPECT_EQ(csv_field(figure), figure);  // a lone "-" (no figure) is text to a spreadsheet, no formula
  EXPECT_EQ(csv_field("--1"), "'--1");
  EXPECT_EQ(csv_field("system/exact"), "system/exact");
}

}  // namespace
}  // namespace abench
