// How long a worker may go without a protocol line before it is called hung (the launcher
// kills it past its allowance; docs/protocol.md).
#pragma once

#include <algorithm>

#include "harness/protocol.h"
#include "src/plan/matrix.h"

namespace abench {

// How long a worker may go without a protocol line before it is called hung: its start,
// a cell's warm-up, a cell's samples once warm-up fixed the batch (the worker says how long
// a batch takes), a counting cell. Ten times what is expected, plus a few seconds for a
// loaded machine; --worker-timeout replaces them all.
struct Allowances {
  double start_s, warmup_s, counting_s, per_sample_factor = 10, slack_s = 5;
  double user_s = 0;

  explicit Allowances(const RunProtocol& p) : user_s(p.worker_timeout_s) {
    const double batch_s = p.min_batch_ms / 1000.0;
    const bool callgrind = row_of(p.measure).callgrind;
    start_s = callgrind ? 120 : 30;
    // Warm-up doubles the batch until it lasts min_batch: about 4 batches' time; a compare's
    // fixed count may be slower on this side.
    warmup_s = callgrind ? 120 : slack_s + 10 * 4 * batch_s;
    counting_s = 30;
  }
  double or_user(double s) const { return user_s > 0 ? user_s : s; }
  double start() const { return or_user(start_s); }
  double next_cell(WorkerMode mode) const { return or_user(mode == WorkerMode::count ? counting_s : warmup_s); }
  double samples(double batch_ns, int samples) const {
    return or_user(slack_s + per_sample_factor * std::max(samples, 1) * batch_ns / 1e9);
  }
  // A paced worker's allowance runs only while it is not waiting for its partner
  // (LaunchRequest::clock_start): after its warm-up, one sample at a time.
  double paced_sample(double batch_ns) const { return or_user(slack_s + per_sample_factor * batch_ns / 1e9); }
};

}  // namespace abench
