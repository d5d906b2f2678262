#include "harness/count_runner.h"

#include <sys/resource.h>

#include <algorithm>
#include <exception>
#include <limits>

#include "allocators/backend.h"
#include "harness/counters.h"
#include "harness/counting_allocator.h"
#include "harness/cross_thread.h"
#include "harness/working_set.h"
#include "harness/peak_rss.h"
#include "harness/pinning.h"
#include "harness/native_allocator.h"
#include "harness/workloads.h"

namespace abench {
namespace {

void widen(std::uint64_t& lo, std::uint64_t& hi, std::uint64_t value) {
  lo = std::min(lo, value);
  hi = std::max(hi, value);
}

template <Workload W, class Native, class Context>
CellCounts count_with(const CellSpec& cell, const Context& context, bool touch, RequestRange expected) {
  BufferSlots<typename Context::Buffer> slots(cell.live);
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  CellCounts c;
  c.id = cell.id;
  c.requests_min = c.final_request_bytes_min = c.usable_bytes_min = c.block_usable_bytes_min =
      c.fragmentation_bytes_min = kNone;
  c.expected_requests_min = expected.min;
  c.expected_requests_max = expected.max;

  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  start_counting();
  for (int iteration = 0; iteration < kCountingIterations; ++iteration) {
    reset_peak_live_bytes();
    for (std::size_t i = 0; i < cell.live; ++i) {
      const std::uint64_t requests_before = counters().requests;
      build_buffer<W>(slots.at(i), context);
      widen(c.requests_min, c.requests_max, counters().requests - requests_before);
      if constexpr (W != Workload::noop) {
        const auto& buffer = *slots.at(i);
        const std::uint64_t final_request = counters().last_request_bytes;
        const std::uint64_t block_usable =
            counters().last_request_block ? Native{}.usable_size(counters().last_request_block) : 0;
        widen(c.final_request_bytes_min, c.final_request_bytes_max, final_request);
        widen(c.usable_bytes_min, c.usable_bytes_max, buffer.capacity());
        widen(c.block_usable_bytes_min, c.block_usable_bytes_max, block_usable);
        widen(c.fragmentation_bytes_min, c.fragmentation_bytes_max,
              block_usable >= final_request ? block_usable - final_request : 0);
      }
      if constexpr (W == Workload::pair) {  // as timed: freed at once, never two live
        if (touch) touch_pages(*slots.at(i));
        drop_buffer<W>(slots.at(i));
      }
    }
    if constexpr (W != Workload::noop && W != Workload::pair)
      if (touch)
        for (std::size_t i = 0; i < cell.live; ++i) touch_pages(*slots.at(i));
    c.peak_live_bytes = std::max(c.peak_live_bytes, counters().peak_live_bytes);
    if (iteration == kCountingIterations - 1) {
      // While the buffers are live; the query itself may allocate, so it is not counted.
      stop_counting();
      {
        backend::ResidentFigure resident = backend::allocator_resident();
        c.allocator_resident_available = resident.available;
        c.allocator_resident_bytes = resident.bytes;
        c.allocator_resident_source = std::move(resident.source);
      }  // its string is freed here, before counting resumes
      resume_counting();
    }
    if constexpr (W == Workload::batch_reverse) {
      for (std::size_t i = cell.live; i > 0; --i) drop_buffer<W>(slots.at(i - 1));
    } else if constexpr (W != Workload::pair) {
      for (std::size_t i = 0; i < cell.live; ++i) drop_buffer<W>(slots.at(i));
    }
  }
  stop_counting();
  getrusage(RUSAGE_SELF, &after);

  const AllocationCounters& totals = counters();
  c.operations = static_cast<std::uint64_t>(kCountingIterations) * cell.live;
  c.requests = totals.requests;
  c.frees = totals.frees;
  c.requested_bytes = totals.requested_bytes;
  c.live_tracking_overflow = totals.live_tracking_overflow;
  c.peak_rss_bytes = own_peak_rss_bytes();
  c.minor_faults = static_cast<std::uint64_t>(after.ru_minflt - before.ru_minflt);
  for (std::uint64_t* v : {&c.final_request_bytes_min, &c.usable_bytes_min, &c.block_usable_bytes_min,
                           &c.fragmentation_bytes_min, &c.final_request_bytes_max})
    if (*v == kNone) *v = 0;  // noop builds nothing
  c.ok = true;
  return c;
}

// For the workloads with loops of their own (xthread, workingset): runs `body` under the
// counters and fills the totals, per-operation averages and the process's memory figures.
template <class Body>
CellCounts count_totals(const CellSpec& cell, std::uint64_t operations, Body&& body) {
  CellCounts c;
  c.id = cell.id;
  c.expected_requests_min = c.expected_requests_max = 1;
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  start_counting();
  const bool ok = body();
  stop_counting();
  getrusage(RUSAGE_SELF, &after);
  if (!ok) throw AllocationFailed();
  const AllocationCounters& totals = counters();
  c.operations = operations;
  c.requests = totals.requests;
  c.frees = totals.frees;
  c.requested_bytes = totals.requested_bytes;
  // Per object: each request is one object's, so min and max are the average when exact.
  c.requests_min = totals.requests / operations;
  c.requests_max = (totals.requests + operations - 1) / operations;
  c.peak_live_bytes = totals.peak_live_bytes;
  c.live_tracking_overflow = totals.live_tracking_overflow;
  c.peak_rss_bytes = own_peak_rss_bytes();
  c.minor_faults = static_cast<std::uint64_t>(after.ru_minflt - before.ru_minflt);
  const backend::ResidentFigure resident = backend::allocator_resident();
  c.allocator_resident_available = resident.available;
  c.allocator_resident_bytes = resident.bytes;
  c.allocator_resident_source = resident.source;
  c.ok = true;
  return c;
}

// xthread: objects allocated here and freed by the consumer thread, counted by a
// CountingAllocator on both sides.
template <class Allocator>
CellCounts count_cross_thread(const CellSpec& cell, Allocator allocator) {
  constexpr std::uint64_t kObjects = 3 * 1024;
  CrossThreadRun<CountingAllocator<Allocator>> run(CountingAllocator<Allocator>{allocator}, cell.size,
                                                   cell.alignment.effective(), second_cpu(current_cpu()), pin_thread);
  CellCounts c = count_totals(cell, kObjects, [&] { return run.run_batch(kObjects); });
  c.final_request_bytes_min = c.final_request_bytes_max = cell.size;
  c.usable_bytes_min = c.usable_bytes_max = cell.size;
  return c;
}

// workingset: builds and releases of the set under the counters. An arena releases all
// at once, so its per-object frees are not expected.
template <class Allocator>
CellCounts count_working_set(const CellSpec& cell, Allocator allocator) {
  WorkingSet<CountingAllocator<Allocator>> set(CountingAllocator<Allocator>{allocator}, cell.size, cell.live,
                                               cell.alignment.effective());
  CellCounts c = count_totals(cell, kCountingIterations * set.objects(), [&] { return set.run(kCountingIterations); });
  const auto sizes = working_set_sizes(cell.live, cell.size);
  c.final_request_bytes_min = c.usable_bytes_min = *std::min_element(sizes.begin(), sizes.end());
  c.final_request_bytes_max = c.usable_bytes_max = *std::max_element(sizes.begin(), sizes.end());
  c.builtin_buffer = c.frees != 0;  // an arena frees nothing one by one: no per-object check
  return c;
}

template <Workload W, class Native>
CellCounts count_workload(const CellSpec& cell, bool touch, const LoadedPlugin* plugin) {
  using Counting = CountingAllocator<Native>;
  if constexpr (W == Workload::workingset) {
    if (plugin != nullptr && plugin->is_buffer())
      throw std::runtime_error("workingset runs on an allocator, and a buffer subject offers none");
    if (plugin != nullptr) return count_working_set(cell, PluginAllocator{plugin->plugin->allocator});
    return count_working_set(cell, Native{});
  }
  if constexpr (W == Workload::xthread) {
    if (plugin != nullptr && plugin->is_buffer())
      throw std::runtime_error("xthread runs on an allocator, and a buffer subject offers none");
    if (plugin != nullptr) return count_cross_thread(cell, PluginAllocator{plugin->plugin->allocator});
    return count_cross_thread(cell, Native{});
  }
  const auto input = make_input(cell.size);
  const RequestRange rule = expected_requests(W, cell.policy, cell.size, cell.alignment.effective());
  if (plugin == nullptr) {
    const ContextFor<W, Counting> context{Counting{Native{}}, cell.policy, cell.size,   cell.alignment,
                                          cell.live,          touch,       input.data()};
    return count_with<W, Native>(cell, context, touch, rule);
  }
  if (!plugin->is_buffer()) {
    using CountingPlugin = CountingAllocator<PluginAllocator>;
    const ContextFor<W, CountingPlugin> context{CountingPlugin{PluginAllocator{plugin->plugin->allocator}},
                                                cell.policy,
                                                cell.size,
                                                cell.alignment,
                                                cell.live,
                                                touch,
                                                input.data()};
    return count_with<W, Native>(cell, context, touch, rule);
  }
  if (is_raw_workload(W))
    throw std::runtime_error("pair and batch workloads run on an allocator, and a buffer subject offers none");
  // A plugin's own buffer: its growth rule is its own, so only "at least one request".
  const Counting counting{Native{}};
  CAllocator<Counting> interface(&counting);
  const PluginBufferContext context{plugin->plugin->buffer, &interface.table, cell.policy, cell.size,
                                    cell.alignment,         cell.live,        touch,       input.data()};
  const RequestRange any{W == Workload::noop ? 0u : 1u, W == Workload::noop ? 0u : kAnyNumberOfRequests};
  CellCounts c = count_with<W, Native>(cell, context, touch, any);
  c.builtin_buffer = false;
  return c;
}

}  // namespace

CellCounts count_cell(const CellSpec& cell, bool touch, const LoadedPlugin* plugin, EntrySet entry) {
  try {
    return with_native_allocator(entry, [&](auto native) {
      return with_workload(cell.workload,
                           [&](auto w) { return count_workload<w.value, decltype(native)>(cell, touch, plugin); });
    });
  } catch (const std::exception& e) {
    stop_counting();
    CellCounts failed;
    failed.id = cell.id;
    failed.error = std::string("counting failed: ") + e.what();
    return failed;
  }
}

}  // namespace abench
