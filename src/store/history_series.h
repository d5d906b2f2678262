// A history store's points as series: one per cell, variant and machine, its points in the
// order their runs were recorded (docs/history.md, "Change points").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/store/history_store.h"

namespace abench {

struct SeriesPoint {
  std::string run;  // the run's key (results.json's run_id)
  std::string commit;
  std::string recorded_at;
  std::string abench_revision;  // what measured it: a change here is abench's, not the library's
  std::string timed_loop;       // the variant's timed loop (harness/timed_loop.h); "" where unnamed
  double figure = 0;
  double process_low = 0, process_high = 0;  // the lowest and highest process figure
  std::optional<double> best;                // the fastest sample
};

struct Series {
  // The cell as compare.csv names it, with the variant, backend and machine.
  std::string machine, measure, variant, backend, policy, workload;
  std::int64_t size = 0, requested = 0, preferred = 0, live = 0;
  std::vector<SeriesPoint> points;
};

// Which series to read: empty lists take every value.
struct SeriesFilter {
  std::vector<std::string> variants, backends, workloads;
  std::vector<std::int64_t> sizes, lives;
};

std::vector<Series> read_series(HistoryStore& store, const SeriesFilter& filter);

// Whether two points were measured alike: by one abench, with one timed loop.
bool same_measurer(const SeriesPoint& a, const SeriesPoint& b);

}  // namespace abench
