#include "harness/cell_runner.h"

#include <cstring>
#include <exception>

#include "harness/checked_allocator.h"
#include "harness/clock.h"
#include "harness/native_allocator.h"
#include "harness/workloads.h"

namespace abench {
namespace {

using Checked = CheckedAllocator<NativeAllocator>;

std::string describe(const CellSpec& c, std::size_t index) {
  return "buffer " + std::to_string(index) + " of " + std::string(name_of(c.workload)) +
         " size=" + std::to_string(c.size) + " align=" + std::to_string(c.alignment.effective()) +
         " " + std::string(name_of(c.policy));
}

template <Workload W>
std::string check_built(const CellSpec& cell, const std::vector<std::byte>& input,
                        AlignedBuffer<Checked>& b, std::size_t index) {
  const ExpectedBuffer expected = expected_buffer(W, cell.size);
  const std::size_t align = cell.alignment.effective();
  if (reinterpret_cast<std::uintptr_t>(b.data()) % align != 0)
    return describe(cell, index) + ": data pointer is not " + std::to_string(align) + "-aligned";
  if (b.length() != expected.length)
    return describe(cell, index) + ": length " + std::to_string(b.length()) + ", expected " +
           std::to_string(expected.length);
  if (b.capacity() < expected.min_capacity)
    return describe(cell, index) + ": capacity " + std::to_string(b.capacity()) +
           " below the " + std::to_string(expected.min_capacity) + " the workload needs";
  for (std::size_t offset = 0; offset < b.length(); ++offset) {
    const std::byte want = W == Workload::zeroed ? std::byte{0} : input[offset % cell.size];
    if (b.data()[offset] != want)
      return describe(cell, index) + ": contents differ at byte " + std::to_string(offset);
  }
  return "";
}

template <Workload W>
std::string verify_workload(const CellSpec& cell, const char* allocator_name) {
  if constexpr (W == Workload::noop) {
    return "";
  } else {
    const auto input = make_input(cell.size);
    const WorkloadContext<Checked> context{Checked(NativeAllocator{}, allocator_name),
                                           cell.policy, cell.size, cell.alignment, cell.live,
                                           false, input.data()};
    BufferSlots<Checked> slots(cell.live);
    std::size_t built = 0;
    std::string problem;
    try {
      for (; built < cell.live; ++built) build_buffer<W>(slots.at(built), context);
      for (std::size_t i = 0; i < built && problem.empty(); ++i)
        problem = check_built<W>(cell, input, *slots.at(i), i);
    } catch (const std::exception& e) {
      problem = std::string(e.what()) + " (building " + describe(cell, built) + ")";
    }
    for (std::size_t i = 0; i < built; ++i) drop_buffer<W>(slots.at(i));
    return problem;
  }
}

template <Workload W>
CellReport measure(const CellSpec& cell, const SamplerConfig& sampler, bool touch) {
  const auto input = make_input(cell.size);
  const WorkloadContext<NativeAllocator> context{NativeAllocator{}, cell.policy,   cell.size,
                                                 cell.alignment,    cell.live,     touch,
                                                 input.data()};
  BufferSlots<NativeAllocator> slots(cell.live);
  SamplerConfig config = sampler;
  if (cell.fixed_iterations) config.fixed_iterations = cell.fixed_iterations;
  const SampleRun run = sample(config, [&](std::uint64_t iterations) {
    const std::uint64_t start = now_ns();
    run_iterations<W>(context, slots, iterations);
    return now_ns() - start;
  });
  CellReport report{cell.id, true, "", run.iterations, cell.live, run.warmup_batches, {}};
  const double ops = static_cast<double>(run.iterations) * static_cast<double>(cell.live);
  for (std::uint64_t ns : run.batch_ns) report.sample_ns_per_op.push_back(static_cast<double>(ns) / ops);
  return report;
}

}  // namespace

std::string verify_cell(const CellSpec& cell, const char* allocator_name) {
  return with_workload(cell.workload, [&](auto w) { return verify_workload<w.value>(cell, allocator_name); });
}

CellReport run_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch,
                    const char* allocator_name) {
  CellReport failed{cell.id, false, "", 0, 0, 0, {}};
  try {
    if (std::string problem = verify_cell(cell, allocator_name); !problem.empty()) {
      failed.error = "verification failed: " + problem;
      return failed;
    }
    return with_workload(cell.workload, [&](auto w) { return measure<w.value>(cell, sampler, touch); });
  } catch (const std::exception& e) {
    failed.error = std::string("measurement failed: ") + e.what();
    return failed;
  }
}

}  // namespace abench
