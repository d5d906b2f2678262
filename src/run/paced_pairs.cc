// Paced pairs (--interleave batch): the two sides of one cell in one round alive at once,
// taking turns batch by batch on the measured CPU (src/run/batch_pacer.h).
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "src/run/job_queue.h"
#include "src/run/launch_request.h"
#include "src/util/errors.h"

namespace abench {
namespace {

// The two jobs the queue starts with, if they are the two sides of one cell in one round of
// a compare run at --interleave batch: they run together, paced.
bool paced_pair(const RunResults& results, const std::deque<Job>& queue) {
  if (!results.protocol.interleave_batches || queue.size() < 2 || results.plan.partner.empty()) return false;
  const Job& a = queue[0];
  const Job& b = queue[1];
  const auto one_timed_cell = [](const Job& j) {
    return j.mode == WorkerMode::time && j.cell_ids.size() == 1 && !j.continuation;
  };
  return one_timed_cell(a) && one_timed_cell(b) && a.round == b.round &&
         results.plan.partner[static_cast<std::size_t>(a.cell_ids[0])] == b.cell_ids[0];
}

}  // namespace

bool JobQueue::paced_pair_next() const { return paced_pair(results_, queue_); }

std::unique_ptr<JobQueue::PairInFlight> JobQueue::start_pair() {
  auto pair = std::make_unique<PairInFlight>();
  PairInFlight& p = *pair;
  p.jobs = {queue_[0], queue_[1]};
  queue_.pop_front();
  queue_.pop_front();
  std::lock_guard setup(mutex_);
  p.pacer = std::make_unique<BatchPacer>(results_.protocol.samples);
  if (!p.pacer->ready()) throw EnvironmentError(fmt::format("cannot make a pace channel: {}", std::strerror(errno)));
  for (std::size_t side = 0; side < 2; ++side) {
    p.index[side] = add_worker(p.jobs[side]);
    p.runners[side].emplace(results_, p.index[side], hooks_, done_, total_, true);
    p.requests[side] = make_launch_request(results_, p.jobs[side], hooks_, p.pacer->worker_end(static_cast<int>(side)));
    p.requests[side].cancel = &p.cancel;
    p.requests[side].clock_start = [this, &p, side] {
      std::lock_guard lock(mutex_);
      return p.pacer->clock_start(static_cast<int>(side));
    };
  }
  p.start = std::chrono::steady_clock::now();  // let_go moves it to the pair's turn
  for (std::size_t side = 0; side < 2; ++side) p.sides[side] = std::jthread([this, &p, side] { run_side(p, side); });
  return pair;
}

void JobQueue::run_side(PairInFlight& p, std::size_t side) {
  try {
    p.outcomes[side] = launcher_.run(p.requests[side], [this, &p, side](std::string_view line) {
      std::lock_guard lock(mutex_);
      const double next = p.runners[side]->on_line(line);
      p.pacer->on_line(static_cast<int>(side), line);
      pause_.set_sampling(p.index[side], p.runners[side]->sampling());
      return next;
    });
  } catch (...) {
    p.errors[side] = std::current_exception();
  }
  pause_.set_sampling(p.index[side], false);
  std::lock_guard lock(mutex_);
  p.wall_s[side] = seconds_since(p.start);
  p.pacer->on_gone(static_cast<int>(side));
}

// The measured CPU is the pair's: the first side warms up (at the count an earlier round
// of the cell fixed, known only once that round has ended).
void JobQueue::let_go(PairInFlight& p) {
  std::lock_guard lock(mutex_);
  hooks_.on_progress(done_, total_,
                     results_.plan.variants[p.jobs[0].variant].label() + " and " +
                         results_.plan.variants[p.jobs[1].variant].label() + " starting");
  p.pacer->let_go(paired_iterations(results_, p.jobs[0].cell_ids[0]));
  p.start = std::chrono::steady_clock::now();  // wall_s: the pair's time on the measured CPU
}

void JobQueue::end_pair(PairInFlight& p) {
  for (auto& side : p.sides)
    if (side.joinable()) side.join();
  for (const auto& error : p.errors)
    if (error) std::rethrow_exception(error);
  std::lock_guard lock(mutex_);
  for (std::size_t side = 0; side < 2; ++side)
    finish(*p.runners[side], p.index[side], p.outcomes[side], p.wall_s[side], queue_);
}

}  // namespace abench
