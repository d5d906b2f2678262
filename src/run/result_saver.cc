#include "src/run/result_saver.h"

#include <algorithm>

#include "src/results/results_writers.h"

namespace abench {

void ResultSaver::between_workers(const RunResults& results) {
  // A long run's file grows (a 120-round compare: 40 MB): at most a tenth of the time writing.
  const auto wait = std::max<std::chrono::duration<double>>(min_interval_, 10 * last_took_);
  if (dirty_ && (!last_ || std::chrono::steady_clock::now() - *last_ >= wait)) save(results);
}

void ResultSaver::save(const RunResults& results) {
  const auto start = std::chrono::steady_clock::now();
  write_result_files(dir_, results);
  dirty_ = false;
  last_ = std::chrono::steady_clock::now();
  last_took_ = *last_ - start;
}

}  // namespace abench
