#include "src/plan.h"

#include <fmt/format.h>

#include "harness/buffer.h"
#include "harness/workloads.h"
#include "src/errors.h"

namespace abench {
namespace {

// SplitMix64: turns (run seed, job index) into well-spread per-process seeds.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

std::string cell_label(const CellSpec& c) {
  return fmt::format("{} {} a{}:{} L{}", name_of(c.workload), c.size, c.alignment.requested,
                     c.alignment.preferred, c.live);
}

std::uint64_t cell_footprint_bytes(const CellSpec& cell) {
  const ExpectedBuffer expected = expected_buffer(cell.workload, cell.size);
  const std::uint64_t capacity = std::max<std::uint64_t>(
      grown_capacity(cell.size, expected.min_capacity), cell.size);
  return (capacity + cell.alignment.effective()) * cell.live;
}

Plan make_plan(const Matrix& m, std::uint64_t seed) {
  Plan plan;
  plan.processes = m.protocol.processes;
  for (const auto& backend : m.backends)
    for (Policy policy : m.policies) plan.variants.push_back({backend, policy});

  std::vector<std::vector<int>> cells_of_variant(plan.variants.size());
  for (std::size_t v = 0; v < plan.variants.size(); ++v)
    for (Workload w : m.workloads)
      for (std::size_t size : m.sizes)
        for (const Alignment& a : m.alignments)
          for (std::size_t live : m.lives) {
            CellSpec spec{static_cast<int>(plan.cells.size()), w, plan.variants[v].policy, size, a, live};
            if (cell_footprint_bytes(spec) > physical_memory_bytes())
              throw UsageError(fmt::format(
                  "{}: cell '{}' would keep {} bytes live, more than this machine's {} bytes "
                  "of memory (lower the size or the live count)",
                  m.path, cell_label(spec), cell_footprint_bytes(spec), physical_memory_bytes()));
            cells_of_variant[v].push_back(spec.id);
            plan.cells.push_back({spec, v});
          }

  if (m.protocol.counts)
    for (const PlannedCell& cell : plan.cells)
      plan.jobs.push_back({WorkerMode::count, 0, cell.variant, {cell.spec.id}, 0});

  const std::size_t variants = plan.variants.size();
  const std::size_t cells_per_variant = cells_of_variant.empty() ? 0 : cells_of_variant[0].size();
  for (int round = 0; round < m.protocol.processes; ++round) {
    auto add_job = [&](std::size_t v, std::vector<int> ids) {
      plan.jobs.push_back({WorkerMode::time, round, v, std::move(ids), mix(seed + plan.jobs.size())});
    };
    if (m.protocol.fresh_process_per_cell) {
      for (std::size_t c = 0; c < cells_per_variant; ++c)
        for (std::size_t i = 0; i < variants; ++i) {
          const std::size_t v = (i + static_cast<std::size_t>(round)) % variants;
          add_job(v, {cells_of_variant[v][c]});
        }
    } else {
      for (std::size_t i = 0; i < variants; ++i) {
        const std::size_t v = (i + static_cast<std::size_t>(round)) % variants;
        add_job(v, cells_of_variant[v]);
      }
    }
  }
  return plan;
}

}  // namespace abench
