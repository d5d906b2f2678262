// The two sides of one compare cell, alive at once on the measured CPU, taking turns batch
// by batch (--interleave batch): whatever the machine does during a sample it does to
// both sides' neighbouring samples, so a round's ratio is the two sides' difference and
// not the machine's drift between two processes run one after the other.
//
// The pacer tells each worker when it may take its next step, on the worker's pace
// channel (docs/protocol.md, "Paced pairs"): once both said hello, the first side warms
// up; once it is warm, the second warms up at the first side's iteration count; then the
// samples alternate first, second, second, first, first, ... (ABBA: a drift that is linear
// in time cancels). A side that ends, however it ends, lets the other go: it runs its
// remaining steps freely, alone on the CPU. The side that takes its last sample first is
// let end before the other takes its own last one: its exit is work on the measured CPU.
//
// Not thread-safe: the caller serialises on_line and on_gone.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

namespace abench {

class BatchPacer {
 public:
  // `samples` per side. It tells neither side anything until let_go: a pair may start up
  // while the one before it is measured.
  explicit BatchPacer(int samples);
  ~BatchPacer();
  BatchPacer(const BatchPacer&) = delete;
  BatchPacer& operator=(const BatchPacer&) = delete;

  // False if the pace channels could not be made (no descriptors left).
  bool ready() const { return ready_; }
  // The read end of side 0's or side 1's channel: LaunchRequest::pace_fd.
  int worker_end(int side) const { return read_end_[static_cast<std::size_t>(side)]; }
  // A protocol line from side 0 or 1, as it arrived.
  void on_line(int side, std::string_view line);
  // Side 0 or 1 has ended (exited, crashed, was killed) or never started. The other then
  // runs on alone, once let go.
  void on_gone(int side);
  // The measured CPU is this pair's now: the first side warms up once both said hello, at
  // `iterations` if an earlier round of the cell fixed the count (0: its warm-up finds it).
  void let_go(std::uint64_t iterations);
  // Where side 0's or 1's allowance starts (LaunchRequest::clock_start): now while it waits
  // for its word, else when it was last told to go.
  std::chrono::steady_clock::time_point clock_start(int side) const;

  // The order the samples are let go in, side by side: 0 1 1 0 0 1 ...
  static std::vector<int> sample_order(int samples);

 private:
  void tell(int side, std::string_view word);
  void release(int side);
  bool has_samples_left(int side) const;

  bool ready_ = false;
  std::array<int, 2> read_end_{-1, -1}, write_end_{-1, -1};
  std::array<bool, 2> said_hello_{false, false}, warm_{false, false};
  std::array<bool, 2> waiting_{false, false}, gone_{false, false};
  bool held_ = true;
  std::array<std::chrono::steady_clock::time_point, 2> told_at_{};
  std::uint64_t iterations_ = 0;
  std::vector<int> order_;
  std::size_t next_sample_ = 0;
};

}  // namespace abench
