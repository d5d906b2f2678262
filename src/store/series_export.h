// `abench history export`: each series as the CSV Apache Otava (formerly Hunter) reads, one
// file a cell: a time column, the commit as an attribute, and one column a metric.
#pragma once

#include <filesystem>
#include <vector>

#include "src/store/history_series.h"

namespace abench {

// "time,commit,<per_op>,best" and a row a point (best empty where not kept).
std::string series_csv(const Series& series);
// The file a series is written to: its cell and variant in characters any file system takes,
// with a number where two would share a name.
std::vector<std::string> series_file_names(const std::vector<Series>& all);

}  // namespace abench
