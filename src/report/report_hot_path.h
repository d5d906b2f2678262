// The hot path in the report: explain/hot-path/ read as data from elsewhere (its index
// validated, file names derived from it, never taken, links refused, sizes bounded) and drawn
// as folded sections, one per function, with the two listings and their diff.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/report/report_model.h"

namespace abench {

// Nothing when the directory has no hot path; a section that cannot be read becomes a warning.
std::vector<ReportHotPath> read_report_hot_paths(const std::filesystem::path& dir, std::vector<std::string>& warnings);

// The report's "Hot path" section ("" without one); escape: the page's HTML escaping.
std::string hot_path_html(const std::vector<ReportHotPath>& hot_paths, std::string (*escape)(std::string_view));

}  // namespace abench
