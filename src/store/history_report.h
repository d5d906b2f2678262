// history.html and report/ beside changes.md (docs/history.md, "The report"): each cell's
// series with each point's process range, its segments' means and its change points marked;
// the cells with a regression first (the most recent first), then the other changes, then
// the rest, up to a cap. SVG inline in the page, SVG and PNG in report/ for a pull request.
#pragma once

#include <filesystem>
#include <vector>

#include "src/store/history_changes.h"

namespace abench {

// Writes DIR/history.html and DIR/report/; returns how many cells were drawn. Throws
// EnvironmentError when gnuplot is missing or fails.
std::size_t write_history_report(const std::filesystem::path& dir, const std::vector<Series>& series,
                                 const std::vector<SeriesChange>& changes);

}  // namespace abench
