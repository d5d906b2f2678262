// The HTML page of abench report: one file, styles inline, figures inline as SVG, no
// script and nothing fetched, so it opens offline and survives being attached or archived.
#include <map>

#include <fmt/format.h>

#include "src/report/report_hot_path.h"
#include "src/report/report_writer.h"

namespace abench {

std::string html_escaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// gnuplot's SVG as an element of the page: without its XML declaration, titled, and with
// its ids prefixed so that two figures' point shapes never share an id.
std::string inline_svg(const RenderedFigure& r) {
  std::string svg = r.svg;
  if (const std::size_t start = svg.find("<svg"); start != std::string::npos) svg.erase(0, start);
  auto replace_all = [&svg](std::string_view from, const std::string& to) {
    for (std::size_t at = svg.find(from); at != std::string::npos; at = svg.find(from, at + to.size()))
      svg.replace(at, from.size(), to);
  };
  const std::string prefix = r.figure.id + "-";
  replace_all("id='gp", "id='" + prefix + "gp");
  replace_all("href='#gp", "href='#" + prefix + "gp");
  replace_all("id=\"gnuplot_canvas\"", "id=\"" + prefix + "canvas\"");
  replace_all("<title>Gnuplot</title>", "<title>" + html_escaped(r.figure.title) + "</title>");
  return svg;
}

namespace {

std::string percent(const std::optional<double>& v) { return v ? fmt::format("{:+.1f}%", 100 * *v) : "–"; }

std::string changes_table(const ReportModel& model) {
  if (model.changes.empty()) return "";
  std::string out =
      "<h2 id=\"changes\">Changes</h2>\n<table class=\"changes\">\n<tr><th>variants</th><th>workload</th>"
      "<th>cell</th><th>change</th><th>interval</th><th>verdict</th><th>note</th></tr>\n";
  for (const ReportChange& c : model.changes) {
    const std::string interval =
        c.low && c.high ? fmt::format("{} to {}", percent(c.low), percent(c.high)) : std::string("–");
    std::string note = c.problem;
    if (c.threshold) note += fmt::format("{}threshold {:.1f}%", note.empty() ? "" : "; ", 100 * *c.threshold);
    if (!c.context.empty() && c.context != "-")
      note += fmt::format("{}context-sensitive: {}", note.empty() ? "" : "; ", c.context);
    if (!c.layout.empty() && c.layout != "-")
      note += fmt::format("{}layout-sensitive: {} ({:.1f}% apart)", note.empty() ? "" : "; ", c.layout,
                          100 * c.layout_range.value_or(0));
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"verdict\" style=\"color:{}\">{}</td>"
        "<td>{}</td></tr>\n",
        html_escaped(c.group), html_escaped(c.workload), html_escaped(c.cell), percent(c.change), interval,
        verdict_colour(c.verdict), html_escaped(c.verdict), html_escaped(note));
  }
  return out + "</table>\n";
}

std::string figure(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "–"; }

// --context: the cells whose figure depends on the cells before them.
std::string context_table(const ReportModel& model) {
  if (model.context.empty()) return "";
  std::string rows;
  int sensitive = 0, judged = 0;
  for (const ReportContext& x : model.context) {
    judged += x.flag == "sensitive" || x.flag == "-";
    if (x.flag != "sensitive") continue;
    ++sensitive;
    rows +=
        fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{} to {}</td></tr>\n",
                    html_escaped(x.variant), html_escaped(x.workload), html_escaped(x.cell), figure(x.in_matrix),
                    figure(x.fresh), percent(x.change), percent(x.low), percent(x.high));
  }
  std::string out = fmt::format("<h2 id=\"context\">Context-sensitive cells</h2>\n<p>{} of {} judged cells. {}</p>\n",
                                sensitive, judged, html_escaped(model.context_rule));
  if (rows.empty()) return out;
  return out +
         fmt::format(
             "<table class=\"context\">\n<tr><th>variant</th><th>workload</th><th>cell</th><th>in matrix "
             "{0}</th><th>fresh {0}</th><th>change</th><th>interval</th></tr>\n",
             html_escaped(model.unit)) +
         rows + "</table>\n";
}

std::string tally(const ReportModel& model) {
  if (model.changes.empty()) return "";
  std::map<std::string, int> counts;
  for (const ReportChange& c : model.changes) ++counts[c.verdict];
  std::string out = "<p class=\"tally\">";
  for (const auto& [verdict, n] : counts)
    out += fmt::format("<span style=\"color:{}\">{} {}</span> ", verdict_colour(verdict), n, html_escaped(verdict));
  return out + fmt::format("of {} cells</p>\n", model.changes.size());
}

std::string unmeasured_table(const ReportModel& model) {
  std::string rows;
  for (const ReportCell& c : model.cells)
    if (c.status != "ok")
      rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", html_escaped(c.variant),
                          html_escaped(c.workload),
                          html_escaped(cell_axes_label(c.size, c.requested_align, c.preferred_align, c.live)),
                          html_escaped(c.status), html_escaped(c.error));
  if (rows.empty()) return "";
  return "<h2 id=\"unmeasured\">Cells without a full figure</h2>\n<table>\n<tr><th>variant</th><th>workload</th>"
         "<th>cell</th><th>status</th><th>why</th></tr>\n" +
         rows + "</table>\n";
}

std::string facts_table(const ReportModel& model) {
  std::string out = "<h2 id=\"conditions\">Conditions</h2>\n<table class=\"facts\">\n";
  for (const auto& [key, value] : model.facts)
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", html_escaped(key), html_escaped(value));
  return out + "</table>\n";
}

constexpr std::string_view kStyle =
    R"(body{font-family:'DejaVu Sans',sans-serif;margin:2em auto;max-width:1000px;color:#222}
table{border-collapse:collapse;font-size:13px;margin:1em 0}th,td{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}
figure{margin:2em 0}figure svg{width:100%;height:auto}figcaption{font-size:13px;color:#444}
.tally span{font-weight:bold;margin-right:1em}pre{font-size:12px;background:#f6f6f6;padding:4px;overflow-x:auto}.verdict{font-weight:bold}.warnings li{color:#8a4b00})";

}  // namespace

std::string report_html(const ReportModel& model, const std::vector<RenderedFigure>& figures) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
      "charset=\"utf-8\">\n<title>{0}</title>\n<style>\n{1}\n</style>\n"
      "</head>\n<body>\n<h1>{0}</h1>\n<p>From <code>{2}</code>. Figures in {3}.</p>\n",
      html_escaped(model.title), kStyle, html_escaped(model.dir.string()), html_escaped(model.unit));
  out += tally(model);
  if (!model.warnings.empty()) {
    out += "<ul class=\"warnings\">\n";
    for (const std::string& w : model.warnings) out += "<li>" + html_escaped(w) + "</li>\n";
    out += "</ul>\n";
  }
  for (const RenderedFigure& r : figures)
    out += fmt::format(
        "<figure id=\"figure-{0}\">\n<h2>{1}</h2>\n{2}\n<figcaption>{3} Files: <a href=\"report/{0}.svg\">"
        "SVG</a>, <a href=\"report/{0}.png\">PNG</a>, <a href=\"report/{0}.gp\">gnuplot script</a>."
        "</figcaption>\n</figure>\n",
        html_escaped(r.figure.id), html_escaped(r.figure.title), inline_svg(r), html_escaped(r.figure.caption));
  out += changes_table(model) + context_table(model) + hot_path_html(model.hot_paths, html_escaped) +
         unmeasured_table(model) + facts_table(model);
  return out + "</body>\n</html>\n";
}

}  // namespace abench
