// One worker's job as it runs: each protocol line from the worker laid into the results as
// it arrives (hello, warm, sampled, cell, counts, done, fatal), and, when the worker ends, the
// blame for the cells it did not report (src/run/orchestrator.h says what a failed worker
// costs). Not thread-safe: the job queue calls it under its lock.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "src/results/results.h"
#include "src/run/allowances.h"
#include "src/run/orchestrator.h"

namespace abench {

class JobRunner {
 public:
  // worker: the job's record in results.workers (which grows while jobs run); done counts
  // the measurements finished, of total, for the progress line. paced: one of a paced pair.
  JobRunner(RunResults& results, std::size_t worker, const OrchestratorHooks& hooks, std::size_t& done,
            std::size_t total, bool paced = false);

  double first_allowance() const;

  // Returns the seconds the worker may take for its next line (0: as it was).
  double on_line(std::string_view line);

  // Between the worker's "warm" line and its cell's report: it takes its samples.
  bool sampling() const { return sampling_; }

  // Cells the worker never reported: the one it was running fails with what happened to
  // it; the ones it had not reached are returned, to run in a fresh worker. Before its
  // hello (it could not start, or refused) every cell fails. An interrupted worker fails
  // nothing: its cells stay pending for --resume.
  std::vector<int> finish(const LaunchOutcome& outcome);

 private:
  WorkerRecord& worker();
  void fail(int id, const std::string& what, const LaunchOutcome& outcome);
  static std::string last_lines(const std::string& text);
  // The cell a report is for, if this job asked for it and it was not reported before.
  CellRecord* accept(int id);
  void mark_done(CellRecord& cell);
  void reported(CellRecord& cell);
  void record_counts(const CellCounts& counts);
  void record(const CellReport& report);
  void announce_next();
  // A worker run from fresh copies names the files they were made from.
  void name_originals(WorkerHello& hello) const;

  RunResults& results_;
  std::size_t worker_index_;  // into results_.workers, which grows while jobs run
  const OrchestratorHooks& hooks_;
  std::size_t& done_;
  std::size_t total_;
  Allowances allowances_;
  bool paced_;
  double batch_ns_ = 0;  // the last warm-up batch's, from "warm"
  bool sampling_ = false;
  std::set<int> reported_;
};

}  // namespace abench
