// The figures of abench report, one registry entry per kind: each draws what the model
// has for it (nothing when it has none) as gnuplot scripts. A new figure is one entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/report/report_model.h"

namespace abench {

struct Figure {
  std::string id;  // file stem and HTML id: forest-1, per-op-allocate, ...
  std::string title;
  std::string caption;  // what it shows and how to read it
  int width = 960, height = 480;
  std::string plot;  // gnuplot commands and data, without terminal and output
};

struct FigureKind {
  std::string_view name;
  std::vector<Figure> (*draw)(const ReportModel& model);
};

const std::vector<FigureKind>& figure_kinds();

// Every kind's figures for the model, in the registry's order.
std::vector<Figure> report_figures(const ReportModel& model);

// Each verdict's colour, shared by the forest plot and the HTML tables.
std::string_view verdict_colour(std::string_view verdict);
// The colour of the variant at this index in results.json's list.
std::string_view variant_colour(std::size_t index);

}  // namespace abench
