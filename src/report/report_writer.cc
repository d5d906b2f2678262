#include "src/report/report_writer.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include <fmt/format.h>

#include "src/util/atomic_file.h"
#include "src/util/directory_lock.h"
#include "src/util/errors.h"
#include "src/report/gnuplot.h"

namespace abench {
namespace {

constexpr std::string_view kFont = "font 'DejaVu Sans,11'";

std::string terminal_lines(const Figure& f, const std::string& svg, const std::string& png, bool first) {
  if (first)
    return fmt::format("set terminal svg size {},{} dynamic noenhanced {} background rgb 'white'\nset output '{}'\n",
                       f.width, f.height, kFont, svg);
  return fmt::format(
      "set terminal pngcairo size {},{} noenhanced {} background rgb 'white'\nset output '{}'\nreplot\n"
      "unset output\n",
      f.width, f.height, kFont, png);
}

std::string script_of(const Figure& f, const std::string& svg, const std::string& png) {
  std::string title = f.title;  // a comment: a line break in a label would end it
  for (char& c : title)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return fmt::format("# abench report: {}\n# Redraw with: gnuplot {}.gp\n", title, f.id) +
         terminal_lines(f, svg, png, true) + f.plot + terminal_lines(f, svg, png, false);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EnvironmentError(fmt::format("{}: cannot read what gnuplot wrote", path.string()));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

// Draws every figure into figures_dir with one gnuplot (its start-up is most of the cost):
// NAME.gp for the user, and NAME.svg and NAME.png, each appearing whole.
std::vector<RenderedFigure> render_figures(const std::vector<Figure>& figures,
                                           const std::filesystem::path& figures_dir) {
  std::string all;
  for (const Figure& f : figures) {
    write_file_atomically(figures_dir / (f.id + ".gp"), script_of(f, f.id + ".svg", f.id + ".png"));
    all += script_of(f, f.id + ".svg", f.id + ".png") + "reset\n";
  }
  std::vector<RenderedFigure> rendered;
  if (figures.empty()) return rendered;
  // gnuplot writes where its script says, following links: into a directory of abench's own,
  // made fresh, from which each figure is renamed into place.
  const std::filesystem::path work = make_private_directory(figures_dir, ".render-");
  try {
    write_file_atomically(work / "render.gp", all);
    run_gnuplot("render.gp", work);
    for (const Figure& f : figures) {
      rendered.push_back({f, read_text(work / (f.id + ".svg"))});
      for (const char* ext : {".svg", ".png"}) std::filesystem::rename(work / (f.id + ext), figures_dir / (f.id + ext));
    }
  } catch (...) {
    std::filesystem::remove_all(work);
    throw;
  }
  std::filesystem::remove_all(work);
  return rendered;
}

std::filesystem::path write_report(const std::filesystem::path& dir) {
  const ReportModel model = load_report_model(dir);
  for (const std::string& w : model.unread) std::cerr << "warning: " << w << "\n";
  hold_output_directory(dir);  // read first: a directory that is not abench's gets no lock file
  const std::filesystem::path figures_dir = dir / "report";
  make_output_subdirectory(figures_dir);
  const std::vector<RenderedFigure> rendered = render_figures(report_figures(model), figures_dir);
  // The hot path's texts beside the figures, for a pull request: section k's diff and its
  // listings, each side numbered (names checked by its reader).
  for (std::size_t k = 0; k < model.hot_paths.size(); ++k) {
    const ReportHotPath& h = model.hot_paths[k];
    if (h.diff && !h.diff->empty())
      write_file_atomically(figures_dir / fmt::format("hot-path-{}-{}.diff", k + 1, h.function), *h.diff);
    for (std::size_t i = 0; i < h.listings.size(); ++i)
      write_file_atomically(figures_dir / fmt::format("hot-path-{}-{}-{}.s", k + 1, h.function, i + 1),
                            h.listings[i].second);
  }
  const std::filesystem::path html = dir / "report.html";
  write_file_atomically(html, report_html(model, rendered));
  return html;
}

void write_report_or_warn(const std::filesystem::path& dir) {
  try {
    std::cout << "report: " << write_report(dir).string() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "warning: no report.html: " << e.what() << "\n";
  }
}

}  // namespace abench
