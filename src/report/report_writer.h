// abench report: DIR/report.html (self-contained: every figure inline as SVG, no script,
// nothing fetched) and DIR/report/ with each figure as SVG and PNG (for a pull request)
// and the gnuplot script that drew it. Run, compare and gate write it too.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/report/report_figures.h"
#include "src/report/report_model.h"

namespace abench {

struct RenderedFigure {
  Figure figure;
  std::string svg;  // as gnuplot wrote it
};

// Throws UsageError for an unreadable or malformed directory, EnvironmentError when gnuplot
// is missing or fails. Returns the path of report.html.
std::filesystem::path write_report(const std::filesystem::path& dir);

// For run, compare and gate: writes the report, or says on stderr why it could not (the
// results stand without it).
void write_report_or_warn(const std::filesystem::path& dir);

std::string report_html(const ReportModel& model, const std::vector<RenderedFigure>& figures);

// Draws the figures into figures_dir with one gnuplot: NAME.gp, NAME.svg and NAME.png each.
std::vector<RenderedFigure> render_figures(const std::vector<Figure>& figures,
                                           const std::filesystem::path& figures_dir);
// Text for HTML (& < > " ' escaped), and a rendered figure's SVG as an element of a page.
std::string html_escaped(std::string_view text);
std::string inline_svg(const RenderedFigure& rendered);

}  // namespace abench
