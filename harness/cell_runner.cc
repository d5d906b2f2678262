#include "harness/cell_runner.h"

#include <algorithm>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "harness/built_buffer_check.h"
#include "harness/checked_allocator.h"
#include "harness/clock.h"
#include "harness/cross_thread.h"
#include "harness/working_set.h"
#include "harness/pinning.h"
#include "harness/instruction_counter.h"
#include "harness/native_allocator.h"
#include "harness/perf_counters.h"
#include "harness/workloads.h"

namespace abench {
namespace {

constexpr const char* kRawOnBufferSubject =
    "pair and batch workloads run on an allocator, and a buffer subject plugin offers none: "
    "run them on the backend, or on an allocator subject";

template <Workload W, class Context>
std::string verify_with(const CellSpec& cell, const Context& context, const std::vector<std::byte>& input,
                        std::size_t required_align, const std::string* pending_error = nullptr) {
  BufferSlots<typename Context::Buffer> slots(cell.live);
  std::size_t built = 0;
  std::string problem;
  try {
    for (; built < cell.live; ++built) build_buffer<W>(slots.at(built), context);
    for (std::size_t i = 0; i < built && problem.empty(); ++i)
      problem = check_built<W>(cell, input, *slots.at(i), i, required_align);
  } catch (const std::exception& e) {
    // A finding inside a plugin's call to the allocator surfaces here as a failed create.
    problem = (pending_error && !pending_error->empty() ? *pending_error : std::string(e.what())) + " (building " +
              describe(cell, built) + ")";
  }
  for (std::size_t i = 0; i < built; ++i) drop_buffer<W>(slots.at(i));
  return problem;
}

// The consumer's CPU for xthread, or the reason the cell cannot run here.
struct ConsumerCpu {
  int cpu = -1;  // -1: unpinned
  std::string refusal;
};

ConsumerCpu consumer_cpu() {
  const int producer = current_cpu();
  const int other = second_cpu(producer);
  if (other < 0)
    return {-1, std::string(kRefusedPrefix) + "xthread needs two CPUs and this worker may use only CPU " +
                    std::to_string(producer) + ": on one CPU it would measure the scheduler, not the allocator"};
  return {worker_is_pinned() ? other : -1, ""};
}

template <class Allocator>
std::string verify_cross_thread(const CellSpec& cell, Allocator allocator) {
  constexpr std::uint64_t kObjects = 4096;  // several times the queue, so it fills and drains
  const ConsumerCpu consumer = consumer_cpu();
  if (!consumer.refusal.empty()) return consumer.refusal;
  CrossThreadRun<Allocator> run(allocator, cell.size, cell.alignment.effective(), consumer.cpu, pin_thread);
  if (!run.run_batch(kObjects)) return "allocator returned nullptr";
  if (!run.pin_error().empty()) return "consumer thread: " + run.pin_error();
  if (run.freed() != kObjects)
    return std::to_string(run.freed()) + " objects freed by the consumer of " + std::to_string(kObjects) + " made";
  return "";
}

template <Workload W, class Native>
std::string verify_workload(const CellSpec& cell, const char* allocator_name, const LoadedPlugin* plugin) {
  using Checked = CheckedAllocator<Native>;
  if constexpr (W == Workload::noop) {
    return "";
  } else if constexpr (W == Workload::workingset) {
    if (plugin != nullptr && plugin->is_buffer()) return kRawOnBufferSubject;
    const std::size_t A = cell.alignment.effective();
    if (plugin != nullptr)
      return WorkingSet(
                 CheckedAllocator<PluginAllocator>(PluginAllocator{plugin->plugin->allocator}, plugin->plugin->name),
                 cell.size, cell.live, A)
          .verify();
    return WorkingSet(Checked(Native{}, allocator_name), cell.size, cell.live, A).verify();
  } else if constexpr (W == Workload::xthread) {
    if (plugin != nullptr && plugin->is_buffer()) return kRawOnBufferSubject;
    if (plugin != nullptr)
      return verify_cross_thread(
          cell, CheckedAllocator<PluginAllocator>(PluginAllocator{plugin->plugin->allocator}, plugin->plugin->name));
    return verify_cross_thread(cell, Checked(Native{}, allocator_name));
  } else {
    const auto input = make_input(cell.size);
    const std::size_t A = cell.alignment.effective();
    if (plugin == nullptr) {
      const ContextFor<W, Checked> context{
          Checked(Native{}, allocator_name), cell.policy, cell.size, cell.alignment, cell.live, false, input.data()};
      return verify_with<W>(cell, context, input, A);
    }
    if (!plugin->is_buffer()) {
      using CheckedPlugin = CheckedAllocator<PluginAllocator>;
      const ContextFor<W, CheckedPlugin> context{
          CheckedPlugin(PluginAllocator{plugin->plugin->allocator}, plugin->plugin->name),
          cell.policy,
          cell.size,
          cell.alignment,
          cell.live,
          false,
          input.data()};
      return verify_with<W>(cell, context, input, A);
    }
    if (is_raw_workload(W)) return kRawOnBufferSubject;
    const Checked checked(Native{}, allocator_name);
    CAllocator<Checked> interface(&checked);
    const PluginBufferContext context{plugin->plugin->buffer, &interface.table, cell.policy, cell.size,
                                      cell.alignment,         cell.live,        false,       input.data()};
    return verify_with<W>(cell, context, input, cell.alignment.requested, &interface.pending_error);
  }
}

// The measurement of one cell, whatever loop it runs: `batch(iterations)` runs that many
// iterations of `ops_per_iteration` operations each and returns false if the allocator
// failed. Timed: the sampler's batches. Instructions: one fixed-size region under callgrind,
// after the same number unmeasured as warm-up.
template <class Batch>
CellReport measure_batches(const CellSpec& cell, std::uint64_t ops_per_iteration, const SamplerConfig& sampler,
                           Measure measure, Batch&& batch) {
  if (row_of(measure).callgrind) {
    const std::uint64_t iterations = (kInstructionModeOperations + ops_per_iteration - 1) / ops_per_iteration;
    if (!batch(iterations)) throw AllocationFailed();
    bool ok = true;
    const InstructionCount count = count_region([&] { ok = batch(iterations); }, cell.id);
    if (!ok) throw AllocationFailed();
    const double ops = static_cast<double>(iterations * ops_per_iteration);
    CellReport report{
        cell.id, true, "", iterations, ops_per_iteration, 1, true, {}, {static_cast<double>(count.instructions) / ops},
        {},      {}};
    if (count.data_reads + count.data_writes)
      report.data_accesses_per_op = static_cast<double>(count.data_reads + count.data_writes) / ops;
    for (const SimulatedEvent& e : kSimulatedEvents)
      report.counter_samples_per_op[e.name] = {static_cast<double>(count.*e.count) / ops};
    return report;
  }
  SamplerConfig config = sampler;
  if (cell.fixed_iterations) config.fixed_iterations = cell.fixed_iterations;
  bool ok = true;
  // Perf measures: the group's counts over each batch; the sampler keeps only the last
  // `samples` batches, so the counts of every batch are kept and the tail taken after.
  // The events as the PMU of the CPU this worker is pinned to counts them.
  const PerfEventPlan perf = perf_events_here(measure);
  const std::vector<PerfEventSpec>& events = perf.events;
  PerfGroup group;
  if (!events.empty())
    if (std::string why = group.open(events); !why.empty()) throw std::runtime_error(why);
  const std::size_t n = events.size();
  std::vector<std::uint64_t> before(n), after(n), batch_counts;  // n counts per batch, flattened
  batch_counts.reserve(64 * n);  // warm-up and samples: no allocation between batches, mostly
  const SampleRun run = sample(config, [&](std::uint64_t iterations) {
    if (n) group.read(before);
    const std::uint64_t start = now_ns();
    ok &= batch(iterations);
    const std::uint64_t elapsed = now_ns() - start;
    if (n) {
      group.read(after);
      for (std::size_t e = 0; e < n; ++e) batch_counts.push_back(after[e] - before[e]);
    }
    return elapsed;
  });
  if (!ok) throw AllocationFailed();
  CellReport report{
      cell.id, true, "", run.iterations, ops_per_iteration, run.warmup_batches, run.warm, run.batch_iterations,
      {},      {},   {}};
  auto ops_of = [&](std::size_t sample) {
    return static_cast<double>(run.batch_iterations[sample]) * static_cast<double>(ops_per_iteration);
  };
  if (n == 0) {
    for (std::size_t k = 0; k < run.batch_ns.size(); ++k)
      report.sample_ns_per_op.push_back(static_cast<double>(run.batch_ns[k]) / ops_of(k));
    return report;
  }
  const std::size_t batches = batch_counts.size() / n, first = batches - run.batch_ns.size();
  for (std::size_t b = first; b < batches; ++b) {
    const std::uint64_t* counts = &batch_counts[b * n];
    // A PMU that does not cover this CPU opens fine and counts nothing: no figure from it.
    if (counts[0] == 0)
      throw std::runtime_error(std::string(events[0].name) + " counted 0 over a timed batch (" + perf.source +
                               "): the counter does not count this CPU, so no figure is reported");
    const double ops = ops_of(b - first);
    report.sample_ns_per_op.push_back(static_cast<double>(counts[0]) / ops);
    for (std::size_t e = 1; e < n; ++e)
      report.counter_samples_per_op[events[e].name].push_back(static_cast<double>(counts[e]) / ops);
    report.counter_samples_per_op["ns"].push_back(static_cast<double>(run.batch_ns[b - first]) / ops);
  }
  return report;
}

template <Workload W, class Context>
CellReport measure_with(const CellSpec& cell, const Context& context, const SamplerConfig& sampler, Measure measure) {
  BufferSlots<typename Context::Buffer> slots(cell.live);
  return measure_batches(cell, cell.live, sampler, measure, [&](std::uint64_t iterations) {
    run_iterations<W>(context, slots, iterations);
    return true;
  });
}

template <class Allocator>
CellReport measure_cross_thread(const CellSpec& cell, Allocator allocator, const SamplerConfig& sampler) {
  CrossThreadRun<Allocator> run(allocator, cell.size, cell.alignment.effective(), consumer_cpu().cpu, pin_thread);
  // The consumer thread must be up and spinning before the first batch is timed: a first
  // batch that waits for the scheduler to start it would stop the warm-up at one object a
  // batch, measuring thread start-up latency instead of the handover.
  if (!run.run_batch(4 * PointerQueue::kCapacity)) throw AllocationFailed();
  return measure_batches(cell, cell.live, sampler, Measure::time,
                         [&](std::uint64_t iterations) { return run.run_batch(iterations * cell.live); });
}

template <class Allocator>
CellReport measure_working_set(const CellSpec& cell, Allocator allocator, const SamplerConfig& sampler,
                               Measure measure) {
  WorkingSet<Allocator> set(allocator, cell.size, cell.live, cell.alignment.effective());
  return measure_batches(cell, set.objects(), sampler, measure,
                         [&](std::uint64_t iterations) { return set.run(iterations); });
}

template <Workload W, class Native>
CellReport measure_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch, const LoadedPlugin* plugin,
                        Measure measure) {
  if constexpr (W == Workload::workingset) {
    if (plugin != nullptr)
      return measure_working_set(cell, PluginAllocator{plugin->plugin->allocator}, sampler, measure);
    return measure_working_set(cell, Native{}, sampler, measure);
  }
  if constexpr (W == Workload::xthread) {
    if (plugin != nullptr) return measure_cross_thread(cell, PluginAllocator{plugin->plugin->allocator}, sampler);
    return measure_cross_thread(cell, Native{}, sampler);
  }
  const auto input = make_input(cell.size);
  if (plugin == nullptr) {
    const ContextFor<W, Native> context{Native{},  cell.policy, cell.size,   cell.alignment,
                                        cell.live, touch,       input.data()};
    return measure_with<W>(cell, context, sampler, measure);
  }
  if (!plugin->is_buffer()) {
    const ContextFor<W, PluginAllocator> context{PluginAllocator{plugin->plugin->allocator},
                                                 cell.policy,
                                                 cell.size,
                                                 cell.alignment,
                                                 cell.live,
                                                 touch,
                                                 input.data()};
    return measure_with<W>(cell, context, sampler, measure);
  }
  const Native native;
  CAllocator<Native> interface(&native);
  const PluginBufferContext context{plugin->plugin->buffer, &interface.table, cell.policy, cell.size,
                                    cell.alignment,         cell.live,        touch,       input.data()};
  return measure_with<W>(cell, context, sampler, measure);
}

}  // namespace

std::string entry_calls(EntrySet entry) {
  return backend::with_entry_set(entry, [](auto calls) { return std::string(decltype(calls)::kCalls); });
}

const char* entry_functions(EntrySet entry) {
  return backend::with_entry_set(entry, [](auto calls) { return decltype(calls)::kFunctions; });
}

std::string verify_cell(const CellSpec& cell, const char* allocator_name, const LoadedPlugin* plugin, EntrySet entry) {
  return with_native_allocator(entry, [&](auto native) {
    return with_workload(cell.workload, [&](auto w) {
      return verify_workload<w.value, decltype(native)>(cell, allocator_name, plugin);
    });
  });
}

CellReport run_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch, const char* allocator_name,
                    const LoadedPlugin* plugin, Measure measure, EntrySet entry) {
  CellReport failed{cell.id, false, "", 0, 0, 0, false, {}, {}, {}, {}};
  try {
    if (row_of(measure).callgrind)
      if (std::string refusal = instruction_refusal_reason(cell, touch); !refusal.empty()) {
        failed.error = std::string(kRefusedPrefix) + refusal;
        return failed;
      }
    const std::uint64_t verify_start = now_ns();
    if (std::string problem = verify_cell(cell, allocator_name, plugin, entry); !problem.empty()) {
      failed.error = problem.starts_with(kRefusedPrefix) ? problem : "verification failed: " + problem;
      return failed;
    }
    // Verification built the cell's buffers once, as one iteration does (not so for the
    // cross-thread handover or the working set, whose checks are work of their own).
    SamplerConfig verified = sampler;
    if (cell.workload != Workload::xthread && cell.workload != Workload::workingset)
      verified.verified_ns = now_ns() - verify_start;
    return with_native_allocator(entry, [&](auto native) {
      return with_workload(cell.workload, [&](auto w) {
        return measure_cell<w.value, decltype(native)>(cell, verified, touch, plugin, measure);
      });
    });
  } catch (const std::exception& e) {
    failed.error = std::string("measurement failed: ") + e.what();
    return failed;
  }
}

}  // namespace abench
