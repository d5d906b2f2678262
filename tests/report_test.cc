// abench report's figures and page from a model built by hand: what each figure holds, and
// that text from result files never becomes gnuplot syntax or markup.
#include <gtest/gtest.h>

#include "src/report/gnuplot.h"
#include "src/report/report_figures.h"
#include "src/report/report_writer.h"

namespace abench {
namespace {

ReportModel model_with_changes() {
  ReportModel m;
  m.kind = "compare";
  m.title = "t";
  m.unit = "ns/op";
  m.changes.push_back(
      {"A -> B", "allocate", "64 B, align 256, live 1", 0.12, 0.05, 0.2, "slower", "", {}, {}, "", "", "", {}});
  m.changes.push_back(
      {"A -> B", "allocate", "4 KiB, align 256, live 1", 0.001, -0.01, 0.01, "same", "", {}, {}, "", "", "", {}});
  m.changes.push_back(
      {"A -> B", "grow", "64 B, align 256, live 1", {}, {}, {}, "failed", "worker crashed", {}, {}, "", "", "", {}});
  m.changes.push_back(
      {"C -> D", "grow", "64 B, align 256, live 1", -0.3, -0.4, -0.2, "faster", "", {}, {}, "", "", "", {}});
  return m;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(ReportFigures, AForestPerPairWithARowPerCellAndASeriesPerVerdict) {
  const auto figures = report_figures(model_with_changes());
  ASSERT_EQ(figures.size(), 2u);  // no cells: no per-cell figures
  EXPECT_EQ(figures[0].id, "forest-1");
  EXPECT_EQ(figures[0].title, "Change per cell: A -> B");
  const std::string& plot = figures[0].plot;
  EXPECT_NE(plot.find("\"allocate: 64 B, align 256, live 1\" 1"), std::string::npos) << plot;
  EXPECT_NE(plot.find("\"grow: 64 B, align 256, live 1 (failed)\" 3"), std::string::npos) << plot;
  EXPECT_NE(plot.find("$v0 << EOD\n12 1 5 20\nEOD"), std::string::npos) << plot;  // percent: change, row, interval
  EXPECT_NE(plot.find("$v1 << EOD\n0.1 2 -1 1\nEOD"), std::string::npos) << plot;
  EXPECT_EQ(count(plot, "<< EOD"), 2u);  // the failed cell has no point
  EXPECT_NE(plot.find("title \"same\""), std::string::npos) << plot;
  EXPECT_NE(plot.find("from graph 0, first 2.5"), std::string::npos);  // the line between workloads
  EXPECT_EQ(figures[1].title, "Change per cell: C -> D");
}

TEST(ReportFigures, PerCellFiguresPlaceEachVariantsFigureWithItsProcessRange) {
  ReportModel m;
  m.unit = "ns/op";
  m.variants = {"A", "B"};
  for (const char* variant : {"A", "B"}) {
    ReportCell c;
    c.variant = variant;
    c.workload = "allocate";
    c.size = 64;
    c.requested_align = c.preferred_align = 256;
    c.live = 1;
    c.status = "ok";
    c.value = variant[0] == 'A' ? 10.0 : 20.0;
    c.process_min = *c.value - 1;
    c.process_max = *c.value + 1;
    c.process_medians = {*c.value - 1, *c.value + 1};
    c.samples = {{*c.value - 1, *c.value - 0.5}, {*c.value + 1, *c.value + 0.5}};
    c.final_request_bytes = 64;
    c.block_usable_bytes = variant[0] == 'A' ? 72 : 80;
    m.cells.push_back(c);
  }
  const auto figures = report_figures(m);
  std::vector<std::string> ids;
  for (const auto& f : figures) ids.push_back(f.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"per-op-allocate", "samples-allocate", "bytes"}));
  EXPECT_NE(figures[0].plot.find("$s0 << EOD\n0.6500 10 9 11\nEOD"), std::string::npos) << figures[0].plot;
  EXPECT_NE(figures[0].plot.find("$s1 << EOD\n1.3500 20 19 21\nEOD"), std::string::npos) << figures[0].plot;
  EXPECT_NE(figures[0].plot.find("set logscale y"), std::string::npos);
  // Quartiles of A's four samples 9, 9.5, 10.5, 11: box 9.375-10.625, whiskers 9-11, median 10.
  EXPECT_NE(figures[1].plot.find("0.6500 9.375 9 11 10.625 10\n"), std::string::npos) << figures[1].plot;
  EXPECT_NE(figures[2].plot.find("$r1 << EOD\n64 80\nEOD"), std::string::npos) << figures[2].plot;
  EXPECT_NE(figures[2].plot.find("\"64 B\" 64"), std::string::npos) << figures[2].plot;
}

TEST(ReportFigures, TextFromFilesStaysText) {
  EXPECT_EQ(gnuplot_string("a\"b\\c\nd`rm -rf ~`\x01"), "\"a\\\"b\\\\c\\nd'rm -rf ~'\"");
  // A tic label is a format to gnuplot: "%d" would read an argument that is not there.
  EXPECT_EQ(gnuplot_tic_label("v%d 50%"), "\"v%%d 50%%\"");
  ReportModel m = model_with_changes();
  m.changes[0].group = "x`touch /tmp/owned`\" ; system(\"id\") #";
  m.changes[0].verdict = "slower\nplot";  // a verdict read from a file never names a data block
  const auto figures = report_figures(m);
  for (const auto& f : figures) {
    EXPECT_EQ(f.plot.find('`'), std::string::npos);
    EXPECT_EQ(f.plot.find("$vslower"), std::string::npos);
  }
  m.cells.push_back({});
  m.cells.back().workload = "../x' ; system('id') ; '";
  m.cells.back().variant = "A";
  m.cells.back().value = 1.0;
  m.variants = {"A"};
  for (const auto& f : report_figures(m))
    EXPECT_EQ(f.id.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-_"), std::string::npos) << f.id;
  std::vector<RenderedFigure> rendered;
  m.title = "<script>alert(1)</script>";
  const std::string html = report_html(m, rendered);
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace abench
