// When a run's results go to disk. Never while a timed batch runs: written from abench's
// thread between timed workers (after one exits, before the next starts), at most once a
// second (or ten times as long as the last write took), and whole at the end or on
// interruption: written more often, paced pairs wait on the writes; written beside them, their
// samples are noisier (docs/decisions.md, "Result writes").
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>

#include "src/results/results.h"

namespace abench {

class ResultSaver {
 public:
  explicit ResultSaver(std::filesystem::path dir, double min_interval_s = 1.0)
      : dir_(std::move(dir)), min_interval_(min_interval_s) {}

  // The results changed (a report, a worker's end): written at the next quiet moment.
  void changed() { dirty_ = true; }
  // No timed worker runs now: writes what changed if the last write is old enough.
  void between_workers(const RunResults& results);
  // Writes them now, whatever the time since the last write.
  void save(const RunResults& results);

 private:
  std::filesystem::path dir_;
  std::chrono::duration<double> min_interval_;
  // When the last write ended; none yet: the first write never waits (steady_clock's epoch
  // is the boot, so a zero time point would hold back a machine's first hour's first write).
  std::optional<std::chrono::steady_clock::time_point> last_;
  std::chrono::duration<double> last_took_{0};
  bool dirty_ = false;
};

}  // namespace abench
