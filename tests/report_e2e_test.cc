// abench report, end to end: a real compare's directory drawn, the page opened in a real
// headless browser (Debian's chromium), and its DOM and screenshot checked for the figures
// that the result files call for.
#include <gtest/gtest.h>
#include <png.h>

#include <cstdlib>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "src/report/report_figures.h"
#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::read_file;
using testing::run_cli;

struct Pixels {
  unsigned width = 0, height = 0;
  std::vector<unsigned char> rgb;
};

Pixels read_png(const std::filesystem::path& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  Pixels p;
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    ADD_FAILURE() << path << ": " << image.message;
    return p;
  }
  image.format = PNG_FORMAT_RGB;
  p.width = image.width;
  p.height = image.height;
  p.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, p.rgb.data(), 0, nullptr)) ADD_FAILURE() << path << ": " << image.message;
  return p;
}

// Pixels within a small distance of "#RRGGBB" (anti-aliasing blends edges, not centres).
int pixels_of(const Pixels& p, std::string_view colour) {
  const int r = std::stoi(std::string(colour.substr(1, 2)), nullptr, 16),
            g = std::stoi(std::string(colour.substr(3, 2)), nullptr, 16),
            b = std::stoi(std::string(colour.substr(5, 2)), nullptr, 16);
  int n = 0;
  for (std::size_t i = 0; i + 2 < p.rgb.size(); i += 3)
    n += std::abs(p.rgb[i] - r) <= 6 && std::abs(p.rgb[i + 1] - g) <= 6 && std::abs(p.rgb[i + 2] - b) <= 6;
  return n;
}

// Debian's chromium, headless (no sandbox: the suite runs as root), its profile in a temporary directory.
testing::CliResult run_chromium(const std::filesystem::path& profile, std::vector<std::string> args) {
  std::vector<std::string> all{"--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                               "--user-data-dir=" + profile.string()};
  all.insert(all.end(), args.begin(), args.end());
  return testing::run_tool("/usr/bin/chromium", all);
}

class ReportEndToEnd : public ::testing::Test {
 protected:
  // A compare whose labels need escaping, over two workloads, with counts: every kind of figure.
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    const auto r = run_cli({"compare",
                            "--baseline",
                            "backend=system,label=A<&>",
                            "--candidate",
                            "backend=system,policy=padded,label=B",
                            "--matrix",
                            "quick",
                            "--workload",
                            "allocate,grow",
                            "--size",
                            "64,4096",
                            "--align",
                            "256",
                            "--live",
                            "1",
                            "--samples",
                            "3",
                            "--processes",
                            "6",
                            "--min-batch-ms",
                            "0.2",
                            "--out",
                            out().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_NE(r.out.find("report: " + (out() / "report.html").string()), std::string::npos) << r.out;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::filesystem::path out() { return dir_->path() / "compare"; }
  static nlohmann::json file(const char* name) { return nlohmann::json::parse(read_file(out() / name)); }
  // The verdicts the compare wrote for cells it has a figure for: each must be drawn.
  static std::set<std::string> drawn_verdicts() {
    std::set<std::string> verdicts;
    const nlohmann::json compare = file("compare.json");  // a range-for over a temporary's member dangles
    for (const auto& row : compare["rows"])
      if (row["change"].is_number()) verdicts.insert(row["verdict"].get<std::string>());
    return verdicts;
  }
  static testing::TempDir* dir_;
};
testing::TempDir* ReportEndToEnd::dir_ = nullptr;

TEST_F(ReportEndToEnd, EachFigureIsWrittenAsSvgPngAndItsScript) {
  for (const char* id : {"forest-1", "per-op-allocate", "per-op-grow", "samples-allocate", "samples-grow", "bytes"})
    for (const char* ext : {".svg", ".png", ".gp"})
      EXPECT_TRUE(std::filesystem::is_regular_file(out() / "report" / (std::string(id) + ext))) << id << ext;
  // The script redraws its figure as it is.
  const auto script = read_file(out() / "report" / "forest-1.gp");
  EXPECT_NE(script.find("set output 'forest-1.svg'"), std::string::npos);
  EXPECT_NE(script.find("set output 'forest-1.png'"), std::string::npos);
  // Nothing half-written is left behind.
  for (const auto& entry : std::filesystem::directory_iterator(out() / "report"))
    EXPECT_NE(entry.path().filename().string().front(), '.') << entry.path();
  // The PNG for a pull request shows each verdict that has a figure, in its colour.
  const Pixels forest = read_png(out() / "report" / "forest-1.png");
  for (const std::string& verdict : drawn_verdicts())
    EXPECT_GT(pixels_of(forest, verdict_colour(verdict)), 10) << verdict;
}

TEST_F(ReportEndToEnd, TheBrowserSeesEveryFigureAndEveryLabel) {
  testing::TempDir profile;
  const auto dom = run_chromium(profile.path(), {"--dump-dom", "file://" + (out() / "report.html").string()});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  std::set<std::string> figures;
  const std::regex figure_id("<figure id=\"figure-([a-z0-9-]+)\">");
  for (auto it = std::sregex_iterator(dom.out.begin(), dom.out.end(), figure_id); it != std::sregex_iterator(); ++it)
    figures.insert((*it)[1]);
  EXPECT_EQ(figures, (std::set<std::string>{"forest-1", "per-op-allocate", "per-op-grow", "samples-allocate",
                                            "samples-grow", "bytes"}));
  // Each figure is an inline SVG with its title; no script, nothing fetched.
  for (const std::string& id : figures) {
    const std::size_t at = dom.out.find("<figure id=\"figure-" + id + "\">");
    const std::size_t end = dom.out.find("</figure>", at);
    const std::string figure = dom.out.substr(at, end - at);
    EXPECT_NE(figure.find("<svg"), std::string::npos) << id;
    EXPECT_NE(figure.find("<path"), std::string::npos) << id;
    if (id.rfind("per-op", 0) == 0) {  // the legend names both variants, as text
      EXPECT_NE(figure.find(">A&lt;&amp;&gt;<"), std::string::npos) << id;
      EXPECT_NE(figure.find(">B<"), std::string::npos) << id;
    }
  }
  EXPECT_EQ(dom.out.find("<script"), std::string::npos);
  EXPECT_EQ(dom.out.find("src=\"http"), std::string::npos);
  // The label that needs escaping arrives as text, not as markup.
  EXPECT_NE(dom.out.find("A&lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(dom.out.find("A<&>"), std::string::npos);
  // Every row of compare.json is in the table, with its verdict.
  const auto rows = file("compare.json")["rows"];
  std::regex row_pattern("<tr><td>A&lt;&amp;&gt; -&gt; B</td>");
  EXPECT_EQ(static_cast<std::size_t>(std::distance(std::sregex_iterator(dom.out.begin(), dom.out.end(), row_pattern),
                                                   std::sregex_iterator())),
            rows.size());
}

TEST_F(ReportEndToEnd, TheScreenshotShowsEachVariantAndEachVerdictInItsColour) {
  testing::TempDir profile;
  const auto shot = profile.path() / "shot.png";
  const auto r = run_chromium(profile.path(), {"--window-size=1100,7000", "--screenshot=" + shot.string(),
                                               "file://" + (out() / "report.html").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Pixels page = read_png(shot);
  ASSERT_EQ(page.width, 1100u);
  // The two variants' points, bars and boxes; the verdicts' points and bars.
  const auto variants = file("results.json")["variants"];
  ASSERT_EQ(variants.size(), 2u);
  for (std::size_t v = 0; v < variants.size(); ++v) EXPECT_GT(pixels_of(page, variant_colour(v)), 50) << v;
  for (const std::string& verdict : drawn_verdicts())
    EXPECT_GT(pixels_of(page, verdict_colour(verdict)), 10) << verdict;
  // A colour that nothing in this report draws is absent: the count above means something.
  EXPECT_EQ(pixels_of(page, variant_colour(4)), 0);
}

TEST(Report, DrawsAGateFromFilesWithoutResults) {
  testing::TempDir dir;
  const std::vector<std::string> tiny{
      "--matrix",       "quick", "--backend",   "system",     "--workload", "allocate", "--size",      "64",
      "--align",        "64",    "--live",      "1",          "--samples",  "3",        "--processes", "2",
      "--min-batch-ms", "0.2",   "--no-counts", "--no-report"};
  std::vector<std::string> run{"run"};
  run.insert(run.end(), tiny.begin(), tiny.end());
  run.insert(run.end(), {"--out", (dir.path() / "base").string()});
  ASSERT_EQ(run_cli(run).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "base" / "report.html"));  // --no-report
  const auto base = (dir.path() / "base").string();
  const auto g = run_cli(
      {"gate", "--baseline", base, "--candidate", base, "--no-report", "--out", (dir.path() / "gate").string()});
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "gate" / "report.html"));
  const auto r = run_cli({"report", (dir.path() / "gate").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto html = read_file(dir.path() / "gate" / "report.html");
  EXPECT_NE(html.find("<figure id=\"figure-forest-1\">"), std::string::npos);
  EXPECT_NE(html.find("system/exact"), std::string::npos);
  EXPECT_EQ(html.find("figure-per-op"), std::string::npos);  // no results.json: nothing per cell to draw
  (void)g;
}

TEST(Report, RefusesWhatIsNotAResultsDirectoryAndWritesNothing) {
  testing::TempDir dir;
  auto r = run_cli({"report", (dir.path() / "missing").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no results.json or gate.json here"), std::string::npos) << r.err;
  dir.write("results.json", "{\"schema\": \"abench.results\", \"schema_version\": 1, \"cells\": [");
  r = run_cli({"report", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find((dir.path() / "results.json").string() + ": malformed JSON"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "report.html"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "report"));
}

}  // namespace
}  // namespace abench
