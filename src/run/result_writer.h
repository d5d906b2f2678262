// Puts a run's results on disk off the measuring path. The orchestrator hands over a copy
// after every change; a thread of its own (on abench's CPUs, never the measured one) writes
// results.json and results.csv atomically. A copy not yet written is replaced by a newer
// one, so the files are at most one update behind while the run goes on, and complete after
// flush(). Written inline, a default-matrix compare's 4 MB results.json held each paced pair
// for its four writes (one per report and per exit): 60 of a pair's 85 ms, the measured CPU
// idle meanwhile (docs/protocol.md).
#pragma once

#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "src/results.h"

namespace abench {

class BackgroundResultWriter {
 public:
  explicit BackgroundResultWriter(std::filesystem::path dir);
  ~BackgroundResultWriter();
  BackgroundResultWriter(const BackgroundResultWriter&) = delete;
  BackgroundResultWriter& operator=(const BackgroundResultWriter&) = delete;

  // Queues a copy of results to be written; rethrows the error of an earlier write.
  void submit(const RunResults& results);
  // Returns when everything submitted is on disk; rethrows a write's error.
  void flush();

 private:
  void write_until_stopped();
  void rethrow_locked();

  std::filesystem::path dir_;
  std::mutex mutex_;
  std::condition_variable wake_, written_;
  std::optional<RunResults> pending_;
  bool writing_ = false, stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace abench
