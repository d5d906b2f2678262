#include "src/run/launch_request.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "allocators/backends.h"
#include "src/run/allowances.h"
#include "src/run/launch_frame.h"
#include "src/run/process_copy.h"

namespace abench {

std::uint64_t paired_iterations(const RunResults& results, int id) {
  if (results.plan.partner.empty()) return 0;
  for (int cell : {id, results.plan.partner[static_cast<std::size_t>(id)]}) {
    const auto& processes = results.cells[static_cast<std::size_t>(cell)].processes;
    if (!processes.empty()) return processes.front().iterations;
  }
  return 0;
}

bool starts_ahead(const OrchestratorHooks& hooks) { return !hooks.start_ahead_cpus.empty() && hooks.measured_cpu >= 0; }

LaunchRequest make_launch_request(const RunResults& results, const Job& job, const OrchestratorHooks& hooks,
                                  int pace_fd, int count_cpu) {
  const Variant& variant = results.plan.variants[job.variant];
  LaunchRequest request;
  request.executable = hooks.worker_path(variant, job.mode);
  request.environment = variant.env;
  if (!variant.preload.empty()) {
    request.environment.emplace_back("LD_PRELOAD", variant.preload);
    request.environment.emplace_back("ABENCH_EXPECT_MALLOC_FROM", variant.preload);
  }
  WorkerRequest worker_request = make_worker_request(results, job);
  if (job.mode == WorkerMode::count && worker_request.pin && count_cpu >= 0) worker_request.cpu = count_cpu;
  worker_request.paced = pace_fd >= 0;
  if (worker_request.paced && worker_request.pin && starts_ahead(hooks)) {
    worker_request.pin_when_told = true;
    worker_request.cpu = hooks.measured_cpu;
    request.start_cpus = hooks.start_ahead_cpus;
  }
  request.pace_fd = pace_fd;
  request.frame = hooks.frame;
  request.fixed_addresses = results.protocol.layout != LayoutMode::kernel;
  const auto layout = layout_for(results.protocol, job.round, job.mode);
  if (layout) request.stack_shift = layout->stack_shift;
  if (runs_fresh_copy(results.protocol, job.mode)) {
    request.fresh_copy_dir = hooks.fresh_copy_dir;
    if (layout && layout->index >= 0) request.shared_copy_name = shared_copy_name(job.variant, layout->index);
    if (job.variant < hooks.fresh_copy_libraries.size())
      request.fresh_copy_library = hooks.fresh_copy_libraries[job.variant];
  }
  request.stdin_text = nlohmann::json(worker_request).dump() + "\n";
  request.timeout_s = Allowances(results.protocol).start();
  if (job.mode == WorkerMode::time && row_of(results.protocol.measure).callgrind) {
    // Collection starts off; the worker switches it on around each measured region and
    // reads its dumps from this directory. --cache-sim adds data reads, writes and misses,
    // --branch-sim branches and mispredictions (harness/instruction_counter.h).
    // --dump-instr: each instruction's cost, for the hot path's annotation.
    request.arguments = {"--tool=callgrind",
                         "--collect-atstart=no",
                         "--cache-sim=yes",
                         "--branch-sim=yes",
                         "--dump-instr=yes",
                         "--callgrind-out-file=" + hooks.callgrind_dir + "/callgrind.%p",
                         "--",
                         request.executable};
    request.executable = hooks.valgrind;
    request.environment.emplace_back("ABENCH_CALLGRIND_DIR", hooks.callgrind_dir);
    // What makes the backend's counts repeat (allocators/backends.h); a setting the variant
    // makes itself wins.
    if (const BackendTraits* b = backend_named(variant.backend); b && !b->deterministic_env_name.empty()) {
      const bool own = std::any_of(variant.env.begin(), variant.env.end(),
                                   [&](const auto& kv) { return kv.first == b->deterministic_env_name; });
      if (!own)
        request.environment.emplace_back(std::string(b->deterministic_env_name),
                                         std::string(b->deterministic_env_value));
    }
  }
  return request;
}

WorkerRequest make_worker_request(const RunResults& results, const Job& job) {
  WorkerRequest request;
  for (int id : job.cell_ids) {
    request.cells.push_back(results.cells[static_cast<std::size_t>(id)].cell.spec);
    if (job.mode == WorkerMode::time) request.cells.back().fixed_iterations = paired_iterations(results, id);
  }
  request.plugin = results.plan.variants[job.variant].plugin;
  request.entry_set = results.plan.variants[job.variant].entry;
  request.measure = job.mode == WorkerMode::time ? results.protocol.measure : Measure::time;
  request.mode = job.mode;
  const RunProtocol& p = results.protocol;
  request.sampler.min_batch_ns = static_cast<std::uint64_t>(p.min_batch_ms * 1e6);
  // A compare's two sides run the same counts batch by batch; a run's cells have no partner.
  request.sampler.follow_rate = results.plan.partner.empty();
  request.sampler.samples = p.samples;
  request.touch = p.touch;
  request.pin = p.pin;
  request.cpu = p.cpu;
  request.order = job.continuation ? CellOrder::matrix : p.order;
  request.seed = job.seed;
  return request;
}

}  // namespace abench
