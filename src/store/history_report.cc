#include "src/store/history_report.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "src/report/gnuplot.h"
#include "src/report/report_writer.h"
#include "src/util/atomic_file.h"

namespace abench {
namespace {

// A page of more cells than this is read by no one: the rest are in changes.csv and export.
constexpr std::size_t kMostFigures = 48;
constexpr std::size_t kMostTics = 16;

std::string cell_title(const Series& s) {
  const std::string align =
      s.requested == 1 ? fmt::format("{}", s.preferred) : fmt::format("{}:{}", s.requested, s.preferred);
  return fmt::format("{} {} {} B, align {}, live {}", s.variant, s.workload, s.size, align, s.live);
}

Figure series_figure(const Series& s, const std::vector<const SeriesChange*>& marks, std::size_t number) {
  std::vector<std::size_t> cuts{0};
  for (const SeriesChange* c : marks) cuts.push_back(c->index);
  cuts.push_back(s.points.size());
  std::sort(cuts.begin(), cuts.end());
  std::string plot = "set key off\nset grid ytics\nset xlabel 'commit, in the order recorded'\n";
  plot += fmt::format("set ylabel {}\n",
                      gnuplot_string(s.measure == "time" ? "ns per operation" : s.measure + " per operation"));
  const std::size_t every = std::max<std::size_t>(1, (s.points.size() + kMostTics - 1) / kMostTics);
  plot += "set xtics (";
  for (std::size_t i = 0; i < s.points.size(); i += every)
    plot += fmt::format("{}{} {}", i ? ", " : "", gnuplot_tic_label(s.points[i].commit.substr(0, 12)), i + 1);
  plot += fmt::format(")\nset xtics rotate by 30 right\nset xrange [0.5:{}.5]\nset bmargin 4\n", s.points.size());
  for (const SeriesChange* c : marks)
    plot += fmt::format("set arrow from {}.5, graph 0 to {}.5, graph 1 nohead dt 2 lc rgb '{}'\n", c->index, c->index,
                        c->by_abench    ? "#777777"
                        : c->change > 0 ? "#D55E00"
                                        : "#009E73");
  plot += "$points << EOD\n";
  for (std::size_t i = 0; i < s.points.size(); ++i)
    plot += fmt::format("{} {:.9g} {:.9g} {:.9g}\n", i + 1, s.points[i].figure, s.points[i].process_low,
                        s.points[i].process_high);
  plot += "EOD\n$segments << EOD\n";
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    if (cuts[k] == cuts[k + 1]) continue;
    double sum = 0;
    for (std::size_t i = cuts[k]; i < cuts[k + 1]; ++i) sum += s.points[i].figure;
    const double mean = sum / static_cast<double>(cuts[k + 1] - cuts[k]);
    plot += fmt::format("{}.5 {:.9g}\n{}.5 {:.9g}\n\n", cuts[k], mean, cuts[k + 1], mean);
  }
  plot +=
      "EOD\nplot $points using 1:2:3:4 with yerrorbars lc rgb '#0072B2' pt 7 ps 0.5, "
      "$segments using 1:2 with lines lc rgb '#000000' lw 2\n";
  Figure f;
  f.id = fmt::format("series-{}", number);
  f.title = cell_title(s);
  f.caption = fmt::format(
      "{} points on {} ({}): each the median of its run's process medians, its bar the range of those; black: each "
      "segment's mean; dashed: a change point (red slower, green faster, grey where the measuring abench changed).",
      s.points.size(), s.machine.substr(0, 8), s.measure);
  f.plot = std::move(plot);
  return f;
}

}  // namespace

std::size_t write_history_report(const std::filesystem::path& dir, const std::vector<Series>& series,
                                 const std::vector<SeriesChange>& changes) {
  // The series in the order changes lists theirs (regressions first), then the rest.
  std::map<const Series*, std::vector<const SeriesChange*>> marks;
  std::vector<const Series*> order;
  for (const SeriesChange& c : changes) {
    if (marks[c.series].empty()) order.push_back(c.series);
    marks[c.series].push_back(&c);
  }
  for (const Series& s : series)
    if (!marks.contains(&s)) order.push_back(&s);
  if (order.size() > kMostFigures) order.resize(kMostFigures);
  std::vector<Figure> figures;
  for (const Series* s : order) figures.push_back(series_figure(*s, marks[s], figures.size() + 1));
  make_output_subdirectory(dir / "report");
  const std::vector<RenderedFigure> rendered = render_figures(figures, dir / "report");
  std::string page =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>abench history</title>\n"
      "<style>body{font-family:sans-serif;max-width:1000px;margin:auto}figure{margin:1em 0}"
      "figcaption{color:#444}</style></head><body>\n";
  page += fmt::format(
      "<h1>abench history</h1>\n<p>{} series, {} changes; {} drawn, the changed ones first "
      "(changes.md has the table).</p>\n",
      series.size(), changes.size(), rendered.size());
  for (const RenderedFigure& r : rendered)
    page += fmt::format("<figure id=\"{}\"><h2>{}</h2>\n{}\n<figcaption>{}</figcaption></figure>\n",
                        html_escaped(r.figure.id), html_escaped(r.figure.title), inline_svg(r),
                        html_escaped(r.figure.caption));
  write_file_atomically(dir / "history.html", page + "</body></html>\n");
  return rendered.size();
}

}  // namespace abench
