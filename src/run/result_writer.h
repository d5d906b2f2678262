// Puts a run's results on disk off the measuring path. The orchestrator offers the results
// after every change; when the writer is idle it takes a copy and a thread of its own writes
// results.json and results.csv atomically, at SCHED_IDLE so it never delays abench's own
// thread (which paces the workers) on the CPUs they share. While a write is under way further
// changes only mark the results dirty: the files lag by at most the reports that arrive during
// one write, and are whole after flush(). Written inline, a quick-matrix compare's results held
// each paced pair for four writes (one per report and per exit): 2:09 for 6 rounds, 0:47 with
// the writer aside.
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

  // The results changed: copied and written now if the writer is idle, else at the next
  // offer after it is. Rethrows the error of an earlier write.
  void offer(const RunResults& results);
  // Writes what was offered last and returns when it is on disk; rethrows a write's error.
  void flush(const RunResults& results);

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
