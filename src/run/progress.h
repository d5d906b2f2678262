// One self-overwriting progress line on stderr: measurements done, the current cell,
// elapsed and estimated time left. Silent when stderr is not a terminal. The time left is
// the plan's expected cost still to come (src/plan/cost.h), scaled by how fast what is
// done went against its expected cost: counting runs first and timed cells after do not
// make it swing.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace abench {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled);
  // cumulative[k]: the expected seconds of the first k measurements (k = 0..total) of the
  // jobs about to run; the time left is scaled by how fast these went (an adaptive run sets
  // one per round it adds).
  void expect(std::vector<double> cumulative) {
    cumulative_ = std::move(cumulative);
    phase_start_ = std::chrono::steady_clock::now();
  }
  void update(std::size_t done, std::size_t total, const std::string& current);
  // Said at the end of the line from now on (a budget's cells resolved and time left).
  void note(std::string text) { note_ = std::move(text); }
  // The estimate update() shows: seconds left after `done` of `total` in `elapsed` s.
  double seconds_left(std::size_t done, std::size_t total, double elapsed) const;
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, phase_start_;
  std::vector<double> cumulative_;
  std::string note_;
};

bool stderr_is_terminal();

}  // namespace abench
