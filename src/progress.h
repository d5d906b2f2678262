// One self-overwriting progress line on stderr: measurements done, the current cell,
// elapsed and estimated time left. Silent when stderr is not a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace abench {

class ProgressLine {
 public:
  explicit ProgressLine(bool enabled);
  void update(std::size_t done, std::size_t total, const std::string& current);
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
};

bool stderr_is_terminal();
std::string format_duration(double seconds);  // "1:05", "1:02:03"

}  // namespace abench
