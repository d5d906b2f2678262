#include "src/run/progress.h"
#include "src/util/text.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

namespace abench {

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

ProgressLine::ProgressLine(bool enabled)
    : enabled_(enabled), start_(std::chrono::steady_clock::now()), phase_start_(start_) {}

void ProgressLine::update(std::size_t done, std::size_t total, const std::string& current) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double in_phase = std::chrono::duration<double>(now - phase_start_).count();
  const std::string left = done == 0 ? "?" : format_duration(seconds_left(done, total, in_phase));
  std::string line = note_.empty() ? fmt::format("[{}/{}] {} | {} elapsed, ~{} left", done, total, current,
                                                 format_duration(elapsed), left)
                                   : fmt::format("{} | {} elapsed | {}", current, format_duration(elapsed), note_);
  if (line.size() > 110) line = line.substr(0, 110);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

double ProgressLine::seconds_left(std::size_t done, std::size_t total, double elapsed) const {
  if (done == 0 || done > total) return 0;
  if (cumulative_.size() == total + 1 && cumulative_[done] > 0)
    return elapsed * (cumulative_[total] - cumulative_[done]) / cumulative_[done];
  return elapsed / static_cast<double>(done) * static_cast<double>(total - done);
}

void ProgressLine::finish() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace abench
