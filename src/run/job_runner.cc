#include "src/run/job_runner.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/run/launch_frame.h"
#include "src/run/process_copy.h"
#include "src/stats/statistics.h"
#include "src/util/text.h"

namespace abench {

JobRunner::JobRunner(RunResults& results, std::size_t worker, const OrchestratorHooks& hooks, std::size_t& done,
                     std::size_t total, bool paced)
    : results_(results),
      worker_index_(worker),
      hooks_(hooks),
      done_(done),
      total_(total),
      allowances_(results.protocol),
      paced_(paced) {}

double JobRunner::first_allowance() const { return allowances_.start(); }

void JobRunner::name_originals(WorkerHello& hello) const {
  const Job& job = results_.workers[worker_index_].job;
  if (!runs_fresh_copy(results_.protocol, job.mode) || hooks_.fresh_copy_dir.empty()) return;
  const std::string library =
      job.variant < hooks_.fresh_copy_libraries.size() ? hooks_.fresh_copy_libraries[job.variant] : "";
  name_files_copied_from(
      hello, hooks_.fresh_copy_dir, [&] { return hooks_.worker_path(results_.plan.variants[job.variant], job.mode); },
      library);
}

// Returns the seconds the worker may take for its next line.
double JobRunner::on_line(std::string_view line) {
  WorkerRecord& worker = this->worker();
  nlohmann::json message;
  sampling_ = false;
  try {
    message = nlohmann::json::parse(line);
    const std::string type = message.at("type").get<std::string>();
    sampling_ = !worker.finished && (type == "warm" || type == "sampled");
    if (worker.finished) {
      worker.protocol_error = fmt::format("a '{}' message after 'done'", printable(type));
    } else if (type == "hello") {
      worker.hello = message.get<WorkerHello>();
      name_originals(*worker.hello);
      announce_next();
      return allowances_.next_cell(worker.job.mode);
    } else if (type == "warm") {
      batch_ns_ = static_cast<double>(whole_number<std::uint64_t>(message.at("batch_ns"), "batch_ns"));
      return paced_ ? allowances_.paced_sample(batch_ns_)
                    : allowances_.samples(batch_ns_, whole_number<int>(message.at("samples"), "samples"));
    } else if (type == "sampled") {
      if (!paced_) worker.protocol_error = "a 'sampled' message from a worker that is not paced";
      return allowances_.paced_sample(batch_ns_);
    } else if (type == "cell") {
      record(message.get<CellReport>());
      return allowances_.next_cell(worker.job.mode);
    } else if (type == "counts") {
      record_counts(message.get<CellCounts>());
      return allowances_.next_cell(worker.job.mode);
    } else if (type == "done") {
      worker.finished = true;
      if (reported_.size() < worker.job.cell_ids.size())
        worker.protocol_error = fmt::format("'done' with {} of its {} cells unreported",
                                            worker.job.cell_ids.size() - reported_.size(), worker.job.cell_ids.size());
    } else if (type == "fatal") {
      worker.protocol_error = printable(message.value("error", "worker reported a fatal error"));
    } else {
      worker.protocol_error = fmt::format("unknown message type '{}'", printable(type));
    }
  } catch (const std::exception& e) {
    sampling_ = false;
    worker.protocol_error =
        fmt::format("unreadable worker output '{}': {}", printable(line.substr(0, 200)), printable(e.what()));
  }
  return 0;
}

// Cells the worker never reported: the one it was running fails with what happened to
// it; the ones it had not reached are returned, to run in a fresh worker. Before its
// hello (it could not start, or refused) every cell fails. An interrupted worker fails
// nothing: its cells stay pending for --resume.
std::vector<int> JobRunner::finish(const LaunchOutcome& outcome) {
  WorkerRecord& worker = this->worker();
  worker.outcome = outcome;
  // The launcher gives printable text; a launcher that does not must not cost the results
  // file its validity (found by the protocol fuzz target with a launcher of raw bytes).
  for (std::string* text : {&worker.outcome.stdout_tail, &worker.outcome.stderr_tail, &worker.outcome.start_error,
                            &worker.outcome.protocol_error})
    *text = printable(*text);
  std::vector<int> unreported;
  const std::vector<int>& order = worker.hello ? worker.hello->order : worker.job.cell_ids;
  // Each cell once: a hello that names a cell twice must not put the blamed cell among the
  // ones not reached, or every fresh worker would fail it again (found by the protocol fuzz
  // target: [1, 1] made continuations without end).
  auto add = [&](int id) {
    if (!reported_.contains(id) && std::count(worker.job.cell_ids.begin(), worker.job.cell_ids.end(), id) &&
        !std::count(unreported.begin(), unreported.end(), id))
      unreported.push_back(id);
  };
  for (int id : order) add(id);
  for (int id : worker.job.cell_ids) add(id);  // a hello whose order left cells out
  std::vector<int> not_reached;
  if (outcome.interrupted_by != 0 || outcome.cancelled || unreported.empty()) {
    hooks_.on_update(results_);
    return not_reached;
  }
  // A worker silent from its start (no hello before its allowance ran out) began no cell:
  // its cells go to one fresh worker. Under qemu-user a spawn now and then deadlocks before
  // its exec (docs/arm.md); a worker whose start hangs again fails its cells then.
  if (outcome.started && outcome.timed_out && !worker.hello && !worker.job.continuation) {
    hooks_.on_update(results_);
    return unreported;
  }
  // Only a worker that got going and then died or hung mid-cell has a cell to blame.
  const bool one_cell_to_blame = worker.hello && !worker.finished && outcome.started;
  const std::string what = describe(worker.outcome);
  for (std::size_t k = 0; k < unreported.size(); ++k) {
    const int id = unreported[k];
    if (one_cell_to_blame && k > 0) {
      not_reached.push_back(id);
      continue;
    }
    fail(id,
         one_cell_to_blame ? fmt::format("{} while running this cell", what)
                           : fmt::format("{} before reporting this cell", what),
         worker.outcome);
  }
  hooks_.on_update(results_);
  return not_reached;
}

WorkerRecord& JobRunner::worker() { return results_.workers[worker_index_]; }

void JobRunner::fail(int id, const std::string& what, const LaunchOutcome& outcome) {
  const WorkerRecord& worker = this->worker();
  std::string reason =
      fmt::format("{} {} ({}{}) {}", worker.job.mode == WorkerMode::count ? "counting worker" : "worker",
                  results_.plan.variants[worker.job.variant].label(),
                  worker.job.mode == WorkerMode::count ? "counting run" : fmt::format("round {}", worker.job.round + 1),
                  worker.hello ? fmt::format(", pid {}", worker.hello->pid) : "", what);
  if (!worker.protocol_error.empty()) reason += ": " + worker.protocol_error;
  if (!outcome.stderr_tail.empty()) reason += "; stderr: " + last_lines(outcome.stderr_tail);
  if (!outcome.stdout_tail.empty()) reason += "; its output (stdout): " + last_lines(outcome.stdout_tail);
  CellRecord& cell = results_.cells[static_cast<std::size_t>(id)];
  // A counting run that fails takes only the counts with it, never the timing.
  if (worker.job.mode == WorkerMode::count)
    cell.counts_unavailable = reason;
  else
    cell.failures.push_back(reason);
  mark_done(cell);
  resummarize(cell, results_.protocol);
  ++done_;
}

std::string JobRunner::last_lines(const std::string& text) {
  std::string tail = text.size() > 600 ? fmt::format("...{}", printable_tail(text, 600)) : text;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

// The cell a report is for, if this job asked for it and it was not reported before.
CellRecord* JobRunner::accept(int id) {
  WorkerRecord& worker = this->worker();
  if (id < 0 || static_cast<std::size_t>(id) >= results_.cells.size() ||
      !std::count(worker.job.cell_ids.begin(), worker.job.cell_ids.end(), id)) {
    worker.protocol_error = fmt::format("report for cell {} that was not asked for", id);
    return nullptr;
  }
  if (!reported_.insert(id).second) return nullptr;
  CellRecord& cell = results_.cells[static_cast<std::size_t>(id)];
  mark_done(cell);
  return &cell;
}

void JobRunner::mark_done(CellRecord& cell) {
  const Job& job = worker().job;
  if (job.mode == WorkerMode::count)
    cell.counting_done = true;
  else if (!std::count(cell.rounds_done.begin(), cell.rounds_done.end(), job.round))
    cell.rounds_done.push_back(job.round);
}

void JobRunner::reported(CellRecord& cell) {
  resummarize(cell, results_.protocol);
  ++done_;
  hooks_.on_update(results_);
  announce_next();
}

void JobRunner::record_counts(const CellCounts& counts) {
  CellRecord* cell = accept(counts.id);
  if (cell == nullptr) return;
  if (counts.ok)
    cell->counts = counts;
  else
    cell->counts_unavailable = printable(counts.error);
  reported(*cell);
}

void JobRunner::record(const CellReport& report) {
  CellRecord* record = accept(report.id);
  if (record == nullptr) return;
  CellRecord& cell = *record;
  const WorkerRecord& worker = this->worker();
  if (!report.ok && report.error.starts_with(kRefusedPrefix)) {
    cell.refusal = printable(report.error);
  } else if (!report.ok || report.sample_ns_per_op.empty()) {
    cell.failures.push_back(report.ok ? "worker reported no samples" : printable(report.error));
  } else {
    ProcessMeasurement m;
    m.round = worker.job.round;
    m.pid = worker.hello ? worker.hello->pid : 0;
    m.cpu = report.cpu >= 0 ? report.cpu : worker.hello ? worker.hello->pinned_cpu : -1;
    m.seed = worker.job.seed;
    m.iterations = report.iterations;
    m.warmup_batches = report.warmup_batches;
    m.warm = report.warm;
    m.sample_iterations = report.sample_iterations;
    m.sample_ns_per_op = report.sample_ns_per_op;
    m.median_ns_per_op = median(report.sample_ns_per_op);
    m.data_accesses_per_op = report.data_accesses_per_op;
    m.counter_samples_per_op = report.counter_samples_per_op;
    m.layout = layout_for(results_.protocol, worker.job.round, worker.job.mode);
    cell.processes.push_back(std::move(m));
  }
  reported(cell);
}

void JobRunner::announce_next() {
  const WorkerRecord& worker = this->worker();
  std::string current = results_.plan.variants[worker.job.variant].label();
  if (worker.job.mode == WorkerMode::count) current += " counting";
  if (worker.hello && reported_.size() < worker.hello->order.size()) {
    const int next = worker.hello->order[reported_.size()];
    if (next >= 0 && static_cast<std::size_t>(next) < results_.cells.size())
      current = fmt::format("{} {}", current, cell_label(results_.cells[static_cast<std::size_t>(next)].cell.spec));
  }
  hooks_.on_progress(done_, total_, current);
}

}  // namespace abench
