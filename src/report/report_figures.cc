#include "src/report/report_figures.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <map>
#include <set>

#include <fmt/format.h>

#include "src/report/gnuplot.h"

namespace abench {
namespace {

// Colour-blind-safe (Okabe & Ito), one per variant.
constexpr std::string_view kVariantColours[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7",
                                                "#56B4E9", "#D55E00", "#F0E442", "#000000"};

std::string axes_tic(const ReportCell& c) {
  return cell_axes_label(c.size, c.requested_align, c.preferred_align, c.live);
}

// The workloads in the order results.json first lists them.
std::vector<std::string> workloads_of(const ReportModel& model) {
  std::vector<std::string> out;
  for (const ReportCell& c : model.cells)
    if (std::find(out.begin(), out.end(), c.workload) == out.end()) out.push_back(c.workload);
  return out;
}

// One workload's cells on a category axis: each distinct size x alignment x live is a
// position; each variant's point sits at an offset within it.
struct CategoryLayout {
  std::vector<std::string> tics;
  std::map<std::string, int> position;  // axes label -> 1-based position
  double offset(std::size_t variant, std::size_t variants) const {
    const double width = 0.7;
    return variants < 2 ? 0 : -width / 2 + width * static_cast<double>(variant) / static_cast<double>(variants - 1);
  }
};

CategoryLayout layout_of(const ReportModel& model, const std::string& workload) {
  CategoryLayout layout;
  for (const ReportCell& c : model.cells) {
    if (c.workload != workload) continue;
    const std::string key = cell_axes_label(c.size, c.requested_align, c.preferred_align, c.live);
    if (layout.position.emplace(key, static_cast<int>(layout.tics.size()) + 1).second)
      layout.tics.push_back(axes_tic(c));
  }
  return layout;
}

std::string xtics_of(const CategoryLayout& layout) {
  std::string out = "set xtics (";
  for (std::size_t i = 0; i < layout.tics.size(); ++i)
    out += fmt::format("{}{} {}", i ? ", " : "", gnuplot_tic_label(layout.tics[i]), i + 1);
  return out +
         fmt::format(")\nset xtics rotate by 30 right\nset bmargin 9\nset xrange [0.4:{}.6]\n", layout.tics.size());
}

std::size_t variant_index(const ReportModel& model, const std::string& label) {
  const auto it = std::find(model.variants.begin(), model.variants.end(), label);
  return static_cast<std::size_t>(it - model.variants.begin());
}

double quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double at = q * static_cast<double>(values.size() - 1);
  const auto low = static_cast<std::size_t>(std::floor(at));
  const std::size_t high = std::min(low + 1, values.size() - 1);
  return values[low] + (values[high] - values[low]) * (at - static_cast<double>(low));
}

constexpr std::string_view kCommon =
    "set border 3\nset tics nomirror\nset grid ytics lc rgb '#dddddd'\nset key outside top center horizontal\n";

// A compare's (or gate's) changes with their intervals, one figure per pair of variants.
std::vector<Figure> draw_forest(const ReportModel& model) {
  std::vector<std::string> groups;
  for (const ReportChange& c : model.changes)
    if (std::find(groups.begin(), groups.end(), c.group) == groups.end()) groups.push_back(c.group);
  std::vector<Figure> out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::map<std::string, std::string> blocks;  // verdict -> data rows
    std::vector<std::string> verdict_order;
    std::string tics = "set ytics (";
    int row = 0;
    std::string separators, last_workload;
    for (const ReportChange& c : model.changes) {
      if (c.group != groups[g]) continue;
      ++row;
      if (c.workload != last_workload && row > 1)
        separators += fmt::format(
            "set arrow from graph 0, first {0}.5 to graph 1, first {0}.5 nohead dt 3 lc rgb '#999999'\n", row - 1);
      last_workload = c.workload;
      const bool drawn = c.change && std::isfinite(*c.change);
      tics += fmt::format("{}{} {}", row > 1 ? ", " : "",
                          gnuplot_tic_label(c.workload + ": " + c.cell + (drawn ? "" : " (" + c.verdict + ")")), row);
      if (!drawn) continue;
      const double change = 100 * *c.change;
      const double low = c.low ? 100 * *c.low : change, high = c.high ? 100 * *c.high : change;
      if (blocks.find(c.verdict) == blocks.end()) verdict_order.push_back(c.verdict);
      blocks[c.verdict] += fmt::format("{:.6g} {} {:.6g} {:.6g}\n", change, row, low, high);
    }
    Figure f;
    f.id = fmt::format("forest-{}", g + 1);
    f.title = "Change per cell: " + groups[g];
    f.caption =
        "Each point is a cell's change (candidate / baseline - 1, the median over paired rounds), the bar its "
        "confidence interval, the colour its verdict; a cell without a figure says why in its label.";
    f.height = 110 + 17 * row;
    std::string plot{kCommon};
    // Data blocks are named by index: a verdict read from a file never becomes gnuplot syntax.
    for (std::size_t i = 0; i < verdict_order.size(); ++i)
      plot += fmt::format("$v{} << EOD\n{}EOD\n", i, blocks[verdict_order[i]]);
    plot += tics + ")\n" + fmt::format("set yrange [{}.5:0.5]\n", row) + separators;
    plot += "set grid xtics ytics lc rgb '#eeeeee'\nset xlabel 'change (%), with its interval'\n";
    plot += "set arrow from 0, graph 0 to 0, graph 1 nohead lc rgb '#333333'\n";
    if (verdict_order.empty()) {
      plot += "set xrange [-1:1]\nplot NaN notitle\n";
    } else {
      plot += "plot ";
      for (std::size_t i = 0; i < verdict_order.size(); ++i)
        plot +=
            fmt::format("{}$v{} using 1:2:3:4 with xerrorbars pt 7 ps 0.7 lc rgb '{}' title {}", i ? ", \\\n     " : "",
                        i, verdict_colour(verdict_order[i]), gnuplot_string(verdict_order[i]));
      plot += "\n";
    }
    f.plot = std::move(plot);
    out.push_back(std::move(f));
  }
  return out;
}

// Per workload: each variant's figure per cell (median of process medians) with the range
// between its processes, on a log scale.
std::vector<Figure> draw_per_op(const ReportModel& model) {
  std::vector<Figure> out;
  for (const std::string& workload : workloads_of(model)) {
    const CategoryLayout layout = layout_of(model, workload);
    std::vector<std::string> blocks(model.variants.size());
    for (const ReportCell& c : model.cells) {
      if (c.workload != workload || !c.value || *c.value <= 0) continue;
      const std::size_t v = variant_index(model, c.variant);
      if (v >= blocks.size()) continue;
      const double x = layout.position.at(cell_axes_label(c.size, c.requested_align, c.preferred_align, c.live)) +
                       layout.offset(v, model.variants.size());
      blocks[v] += fmt::format("{:.4f} {:.6g} {:.6g} {:.6g}\n", x, *c.value, c.process_min.value_or(*c.value),
                               c.process_max.value_or(*c.value));
    }
    Figure f;
    f.id = "per-op-" + workload;
    f.title = fmt::format("{}: {} per cell", workload, model.unit);
    f.height = 540;
    f.caption =
        "Each point is the median over a variant's processes of each process's median sample; the bar spans "
        "the fastest to the slowest process. Log scale.";
    std::string plot{kCommon};
    plot += "set logscale y\n" + xtics_of(layout) + "set ylabel " + gnuplot_string(model.unit + " (log scale)") + "\n";
    std::string series;
    for (std::size_t v = 0; v < blocks.size(); ++v) {
      if (blocks[v].empty()) continue;
      plot += fmt::format("$s{} << EOD\n{}EOD\n", v, blocks[v]);
      series +=
          fmt::format("{}$s{} using 1:2:3:4 with yerrorbars pt 7 ps 0.8 lc rgb '{}' title {}",
                      series.empty() ? "" : ", \\\n     ", v, variant_colour(v), gnuplot_string(model.variants[v]));
    }
    if (series.empty()) continue;  // nothing of this workload was measured
    f.plot = plot + "plot " + series + "\n";
    out.push_back(std::move(f));
  }
  return out;
}

// Per workload: each variant's samples per cell pooled over its processes, as a box
// (quartiles) with whiskers (extremes) and a line at the median, and every process's
// median as a dot beside it: the spread inside processes against the spread between them.
std::vector<Figure> draw_distributions(const ReportModel& model) {
  std::vector<Figure> out;
  for (const std::string& workload : workloads_of(model)) {
    const CategoryLayout layout = layout_of(model, workload);
    std::vector<std::string> boxes(model.variants.size()), medians(model.variants.size());
    const double box_width = 0.6 / static_cast<double>(std::max<std::size_t>(model.variants.size(), 1));
    for (const ReportCell& c : model.cells) {
      if (c.workload != workload || c.samples.empty()) continue;
      const std::size_t v = variant_index(model, c.variant);
      if (v >= boxes.size()) continue;
      std::vector<double> pooled;
      for (const auto& process : c.samples)
        for (const double s : process)
          if (s > 0) pooled.push_back(s);
      if (pooled.empty()) continue;
      const double x = layout.position.at(cell_axes_label(c.size, c.requested_align, c.preferred_align, c.live)) +
                       layout.offset(v, model.variants.size());
      boxes[v] +=
          fmt::format("{:.4f} {:.6g} {:.6g} {:.6g} {:.6g} {:.6g}\n", x, quantile(pooled, 0.25), quantile(pooled, 0.0),
                      quantile(pooled, 1.0), quantile(pooled, 0.75), quantile(pooled, 0.5));
      for (const double m : c.process_medians)
        if (m > 0) medians[v] += fmt::format("{:.4f} {:.6g}\n", x + box_width * 0.75, m);
    }
    std::string plot{kCommon}, series;
    plot += fmt::format("set logscale y\nset boxwidth {:.4f} absolute\n", box_width) + xtics_of(layout) +
            "set ylabel " + gnuplot_string(model.unit + " per sample (log scale)") + "\n";
    for (std::size_t v = 0; v < boxes.size(); ++v) {
      if (boxes[v].empty()) continue;
      plot += fmt::format("$b{0} << EOD\n{1}EOD\n$m{0} << EOD\n{2}EOD\n", v, boxes[v], medians[v]);
      const std::string colour{variant_colour(v)};
      series += fmt::format(
          "{0}$b{1} using 1:2:3:4:5 with candlesticks whiskerbars lc rgb '{2}' fs solid 0.25 title {3}, \\\n"
          "     $b{1} using 1:6:6:6:6 with candlesticks lc rgb '{2}' lw 2 notitle, \\\n"
          "     $m{1} using 1:2 with points pt 7 ps 0.4 lc rgb '{2}' notitle",
          series.empty() ? "" : ", \\\n     ", v, colour, gnuplot_string(model.variants[v]));
    }
    if (series.empty()) continue;
    Figure f;
    f.id = "samples-" + workload;
    f.title = fmt::format("{}: the samples of each cell", workload);
    f.caption =
        "Per variant and cell, all timed samples of all its processes: the box spans the middle half, the "
        "whiskers the extremes, the thick line is the median; the dots beside it are the process medians "
        "the verdicts are computed from. Log scale.";
    f.plot = plot + "plot " + series + "\n";
    out.push_back(std::move(f));
  }
  return out;
}

// What each allocator gives for what the buffer asks: the final request against the usable
// size of the block the allocator returned (malloc_usable_size and its kin), from the counting runs.
std::vector<Figure> draw_bytes(const ReportModel& model) {
  std::vector<std::string> blocks(model.variants.size());
  double smallest = HUGE_VAL, largest = 0;
  for (const ReportCell& c : model.cells) {
    if (!c.final_request_bytes || !c.block_usable_bytes || *c.final_request_bytes <= 0) continue;
    const std::size_t v = variant_index(model, c.variant);
    if (v >= blocks.size()) continue;
    blocks[v] += fmt::format("{:.0f} {:.0f}\n", *c.final_request_bytes, *c.block_usable_bytes);
    smallest = std::min({smallest, *c.final_request_bytes, *c.block_usable_bytes});
    largest = std::max({largest, *c.final_request_bytes, *c.block_usable_bytes});
  }
  std::string plot{kCommon}, series;
  // Tics every power of 4, labelled as the tables write sizes.
  std::string tics;
  for (double t = std::exp2(2 * std::floor(std::log2(std::max(smallest, 1.0)) / 2)); t <= largest * 4; t *= 4)
    tics += fmt::format("{}{} {:.0f}", tics.empty() ? "" : ", ",
                        gnuplot_string(byte_size_label(static_cast<std::uint64_t>(t))), t);
  plot += "set logscale xy 2\nset grid xtics ytics lc rgb '#dddddd'\n";
  plot += fmt::format("set xtics ({0})\nset ytics ({0})\n", tics);
  plot +=
      "set xlabel 'bytes requested (the final request backing a buffer, largest in the cell)'\n"
      "set ylabel 'bytes the block holds (malloc_usable_size and kin)'\n";
  for (std::size_t v = 0; v < blocks.size(); ++v) {
    if (blocks[v].empty()) continue;
    plot += fmt::format("$r{} << EOD\n{}EOD\n", v, blocks[v]);
    series += fmt::format("{}$r{} using 1:2 with points pt {} ps 1.1 lc rgb '{}' title {}",
                          series.empty() ? "" : ", \\\n     ", v, 4 + 2 * (v % 4), variant_colour(v),
                          gnuplot_string(model.variants[v]));
  }
  if (series.empty()) return {};
  Figure f;
  f.id = "bytes";
  f.title = "Requested against usable bytes";
  f.caption =
      "Each mark is a cell: the largest final request of its buffers against the usable size the allocator "
      "gave it. On the line the allocator gave exactly what was asked; above it, the slack it rounds up to (internal "
      "fragmentation). From "
      "the counting runs.";
  f.height = 560;
  f.plot = plot + "plot " + series + ", \\\n     x with lines dt 2 lc rgb '#999999' title 'usable = requested'\n";
  return {f};
}

}  // namespace

std::string_view verdict_colour(std::string_view named) {
  // None of them a variant's colour: a screenshot tells verdicts from variants. A gate names
  // the outcomes that do not pass in capitals (UNDECIDED, UNCLEAR, FAILED).
  std::string verdict(named);
  std::transform(verdict.begin(), verdict.end(), verdict.begin(), [](unsigned char c) { return std::tolower(c); });
  if (verdict == "slower" || verdict == "regression") return "#B2182B";
  if (verdict == "faster" || verdict == "improvement") return "#1A9850";
  if (verdict == "undecided") return "#E08214";
  if (verdict == "failed") return "#762A83";
  if (verdict == "unclear") return "#8C8C8C";
  return "#555555";  // same, pass
}

std::string_view variant_colour(std::size_t index) { return kVariantColours[index % std::size(kVariantColours)]; }

// --explain: each cell's time change against its instructions' change, so that more work
// (right) and the same work running slower (up, on the vertical axis) separate at a glance.
std::vector<Figure> draw_work(const ReportModel& model) {
  std::vector<std::string> kinds;  // the reading's first words: more work, same work, ...
  std::map<std::string, std::string> blocks;
  double x_low = 0, x_high = 0, y_low = 0, y_high = 0;  // both axes' zero always in view
  for (const ReportChange& c : model.changes) {
    if (!c.instructions_change || !c.change || !std::isfinite(*c.change)) continue;
    const std::string kind = c.reading.empty() ? "unmoved" : c.reading.substr(0, c.reading.find(" ("));
    if (blocks.find(kind) == blocks.end()) kinds.push_back(kind);
    const double x = 100 * *c.instructions_change, y = 100 * *c.change;
    blocks[kind] += fmt::format("{:.6g} {:.6g}\n", x, y);
    x_low = std::min(x_low, x), x_high = std::max(x_high, x), y_low = std::min(y_low, y), y_high = std::max(y_high, y);
  }
  const auto padded = [](double low, double high) {
    const double pad = std::max(1.0, 0.08 * (high - low));
    return fmt::format("[{:.6g}:{:.6g}]", low - pad, high + pad);
  };
  if (kinds.empty()) return {};
  Figure f;
  f.id = "work";
  f.title = "Time change against instruction change";
  f.caption =
      "Each point is a cell: across, its instructions per operation (counted under callgrind, --explain); up, "
      "its time change. Points on the vertical line did the same work; their colour is the cell's reading.";
  std::string plot{kCommon};
  for (std::size_t i = 0; i < kinds.size(); ++i) plot += fmt::format("$w{} << EOD\n{}EOD\n", i, blocks[kinds[i]]);
  plot += "set xlabel 'instructions per operation, change (%)'\nset ylabel 'time per operation, change (%)'\n";
  plot += "set grid xtics ytics lc rgb '#eeeeee'\nset xzeroaxis lc rgb '#333333'\nset yzeroaxis lc rgb '#333333'\n";
  plot += fmt::format("set xrange {}\nset yrange {}\n", padded(x_low, x_high), padded(y_low, y_high));
  plot += "plot ";
  for (std::size_t i = 0; i < kinds.size(); ++i)
    plot += fmt::format("{}$w{} using 1:2 with points pt 7 ps 0.8 lc rgb '{}' title {}", i ? ", \\\n     " : "", i,
                        variant_colour(i), gnuplot_string(kinds[i]));
  f.plot = plot + "\n";
  return {f};
}

const std::vector<FigureKind>& figure_kinds() {
  static const std::vector<FigureKind> kinds{
      {"forest", draw_forest},         {"work", draw_work},   {"per-op", draw_per_op},
      {"samples", draw_distributions}, {"bytes", draw_bytes},
  };
  return kinds;
}

std::vector<Figure> report_figures(const ReportModel& model) {
  std::vector<Figure> out;
  std::set<std::string> ids;
  for (const FigureKind& kind : figure_kinds())
    for (Figure& f : kind.draw(model)) {
      // The id names files and sits in gnuplot's 'set output': of a workload read from a
      // file only letters, digits, '-' and '_' stay, and a repeated id gets a number.
      for (char& c : f.id)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
      for (std::string base = f.id; !ids.insert(f.id).second;) f.id = fmt::format("{}-{}", base, ids.size());
      out.push_back(std::move(f));
    }
  return out;
}

}  // namespace abench
