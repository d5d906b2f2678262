// compare.md and gate.md as pull-request comments: the headline and the changed cells come
// before anything else, every cell is folded in <details>, the whole stays under GitHub's
// comment limit, and a CommonMark renderer with GitHub's table extension (cmark-gfm, as
// Debian ships it) renders it into the tables and folds it promises.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "src/util/comment_markdown.h"
#include "src/verdict/compare.h"
#include "src/verdict/gate.h"
#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

// The default matrix's shape: 3 backends x 48 cells, every one judged same except `moved`
// (row index -> change), with counts and long allocator provenance on both sides.
Comparison default_sized_compare(const std::map<std::size_t, double>& moved) {
  Comparison c;
  c.processes = 6;
  for (const char* backend : {"system", "mimalloc", "jemalloc"}) {
    c.pair_backends.push_back(backend);
    c.baseline_labels.push_back(std::string(backend) + "/exact (padded build)");
    c.candidate_labels.push_back(std::string(backend) + "/exact (exact build)");
    c.baseline_allocators.push_back(std::string(200, 'a'));
    c.candidate_allocators.push_back(std::string(200, 'b'));
  }
  for (std::size_t pair = 0; pair < 3; ++pair)
    for (int i = 0; i < 48; ++i) {
      CompareRow row;
      row.pair = pair;
      row.spec.workload = static_cast<Workload>(i % 4);
      row.spec.size = i < 16 ? 64 : i < 32 ? 4096 : 65536;
      row.spec.alignment = {i % 8 < 4 ? 256u : 4096u, 1};
      row.spec.live = i % 2 ? 64 : 1;
      row.before_ns = row.before_min = row.before_max = 100;
      row.after_ns = row.after_min = row.after_max = 100;
      Judgement j;
      j.coverage = 0.97;
      j.replicates = 6;
      j.detectable = 0.02;
      const auto m = moved.find(c.rows.size());
      j.change = m == moved.end() ? 0.001 : m->second;
      j.low = j.change - 0.01;
      j.high = j.change + 0.01;
      j.call = m == moved.end() ? Call::same : m->second > 0 ? Call::slower : Call::faster;
      row.verdict = verdict_of(j.call);
      row.judgement = j;
      CellCounts k;
      k.operations = 100;
      k.requests = 100;
      k.requested_bytes = 100 * (row.spec.size + 256);
      k.usable_bytes_min = k.usable_bytes_max = row.spec.size + 256;
      row.before_counts = k;
      k.requested_bytes = 100 * row.spec.size;
      row.after_counts = k;
      c.rows.push_back(row);
    }
  derive_from_rows(c);
  return c;
}

// cmark-gfm's HTML for the Markdown: what GitHub's renderer (a fork of it) makes of it.
std::string rendered(const std::string& markdown) {
  testing::TempDir dir;
  const auto file = dir.path() / "comment.md";
  std::ofstream(file) << markdown;
  const testing::CliResult r =
      testing::run_tool("/usr/bin/cmark-gfm", {"--extension", "table", "--unsafe", file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CommentMarkdown, TwoChangedCellsAmong144ComeFirstLargestFirstAndTheRestIsFolded) {
  // Row 100 (jemalloc) moved 5%, row 7 (system) 12% faster: the larger comes first.
  const Comparison c = default_sized_compare({{100, 0.05}, {7, -0.12}});
  const std::string md = comparison_markdown(c);
  EXPECT_LT(md.size(), kCommentLimit * 3 / 4) << "room for longer labels, notes and --context";
  EXPECT_EQ(md.substr(0, md.find('\n')), "### abench compare: 1 slower, 1 faster, 142 same, 0 unclear, 0 failed");
  const std::size_t fold = md.find("<details>");
  ASSERT_NE(fold, std::string::npos);
  const std::string before_fold = md.substr(0, fold);
  EXPECT_NE(before_fold.find("Geometric-mean change: jemalloc"), std::string::npos) << before_fold;
  EXPECT_NE(before_fold.find("Counts (requested or usable bytes, requests) differ in 144 cells"), std::string::npos);
  const std::size_t faster = before_fold.find("| -12.0% |"), slower = before_fold.find("| +5.0% |");
  ASSERT_NE(faster, std::string::npos) << before_fold;
  ASSERT_NE(slower, std::string::npos) << before_fold;
  EXPECT_LT(faster, slower);
  EXPECT_EQ(count_of(before_fold, "| same |"), 0u) << "only changed cells before the fold";
  EXPECT_EQ(count_of(md, "| same |"), 142u) << "every cell in the folded table";

  const std::string html = rendered(md);
  EXPECT_EQ(html.substr(0, html.find('\n')),
            "<h3>abench compare: 1 slower, 1 faster, 142 same, 0 unclear, 0 failed</h3>");
  EXPECT_EQ(count_of(html, "<table>"), 2u) << "the changed cells, then all of them";
  EXPECT_EQ(count_of(html, "<details>"), 2u) << "every cell, and what each side ran";
  EXPECT_LT(html.find("<table>"), html.find("<details>"));
  EXPECT_EQ(count_of(html, "<tr>"), 1u + 2u + 1u + 144u) << "headers and rows, none lost to a broken table";
}

TEST(CommentMarkdown, NoChangeSaysSoBeforeTheFold) {
  const std::string md = comparison_markdown(default_sized_compare({}));
  EXPECT_NE(md.substr(0, md.find("<details>")).find("No cell is faster or slower"), std::string::npos);
  EXPECT_EQ(count_of(rendered(md), "<table>"), 1u);
}

TEST(CommentMarkdown, PastTheLimitTheFoldedRowsGoFirstAndTheCommentSaysWhereTheyAre) {
  std::map<std::size_t, double> moved;
  for (std::size_t i = 0; i < 144; i += 3) moved[i] = 0.02 + 0.001 * static_cast<double>(i);
  const Comparison c = default_sized_compare(moved);
  const std::string whole = comparison_markdown(c);
  ASSERT_LT(whole.size(), kCommentLimit);
  // The same document against a limit it does not fit: the folded table loses rows, the
  // changed cells stay whole, and a line names the file with every row.
  const std::string headline = "### t";
  std::vector<CommentSection> sections{shown_section("shown"), folded_section("folded")};
  for (CommentSection& s : sections) s.table.push_back({"a", "b"});
  for (int i = 0; i < 50; ++i) sections[0].table.push_back({fmt::format("s{}", i), "x"});
  for (int i = 0; i < 500; ++i) sections[1].table.push_back({fmt::format("f{}", i), std::string(40, 'y')});
  const std::string cut = comment_markdown(headline, sections, "compare.csv", 8000);
  EXPECT_LE(cut.size(), 8000u);
  EXPECT_NE(cut.find("| s49 | x |"), std::string::npos) << "the shown table stays whole";
  EXPECT_NE(cut.find("| f0 |"), std::string::npos) << "the folded one keeps its first rows";
  EXPECT_EQ(cut.find("| f499 |"), std::string::npos);
  const std::regex note(
      "\\n(\\d+) more rows are not shown here \\(GitHub's comment limit\\): compare.csv holds every one");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cut, m, note)) << cut.substr(cut.size() - 300);
  EXPECT_EQ(std::stoul(m[1]) + count_of(cut, "| f"), 500u);
  EXPECT_NE(rendered(cut).find("<details>"), std::string::npos);
}

TEST(CommentMarkdown, GateShowsRegressionsFirstAndFoldsEveryCell) {
  GateVerdict v;
  for (int i = 0; i < 144; ++i) {
    GateCell cell;
    cell.key = fmt::format("system/exact/allocate/{}/1:256/1", i);
    cell.metric = "ns_per_op";
    cell.threshold = cell.applied = 0.05;
    Judgement j;
    j.change = i == 40 ? 0.09 : i == 90 ? -0.07 : 0.001;
    j.low = j.change - 0.01;
    j.high = j.change + 0.01;
    cell.judgement = j;
    cell.outcome = i == 40 ? GateOutcome::regression : i == 90 ? GateOutcome::improvement : GateOutcome::pass;
    v.cells.push_back(cell);
  }
  recount(v);
  const std::string md = gate_markdown(v);
  EXPECT_LT(md.size(), kCommentLimit);
  EXPECT_EQ(md.substr(0, md.find('\n')), "### abench gate: REGRESSION");
  const std::string before_fold = md.substr(0, md.find("<details>"));
  EXPECT_NE(before_fold.find("1 regression, 1 improvement, 142 unchanged"), std::string::npos) << before_fold;
  const std::size_t regression = before_fold.find("/40/1:256/1 | +9.00%"),
                    improvement = before_fold.find("/90/1:256/1 | -7.00%");
  ASSERT_NE(regression, std::string::npos) << before_fold;
  ASSERT_NE(improvement, std::string::npos) << before_fold;
  EXPECT_LT(regression, improvement);
  EXPECT_EQ(count_of(before_fold, "| pass |"), 0u);
  const std::string html = rendered(md);
  EXPECT_EQ(count_of(html, "<table>"), 2u);
  EXPECT_EQ(count_of(html, "<tr>"), 1u + 2u + 1u + 144u);
}

}  // namespace
}  // namespace abench
