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

namespace {

// Variant order within round `round`: run rotates all variants by one a round (two simply
// alternate); compare keeps each pair together and alternates which side goes first.
using RoundOrder = std::vector<std::size_t> (*)(std::size_t variants, int round);

std::vector<std::size_t> rotated(std::size_t variants, int round) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < variants; ++i) order.push_back((i + static_cast<std::size_t>(round)) % variants);
  return order;
}

std::vector<std::size_t> pairs_alternating(std::size_t variants, int round) {
  std::vector<std::size_t> order;
  for (std::size_t pair = 0; pair < variants / 2; ++pair) {
    const std::size_t first = 2 * pair + static_cast<std::size_t>(round % 2);
    order.push_back(first);
    order.push_back(first ^ 1);
  }
  return order;
}

// paired: the two sides of a compare pair share each round's cell-order seed, so both
// run their cells in the same order and allocator history is alike on both sides; only
// the variant differs.
Plan schedule(const Matrix& m, std::vector<Variant> variants, std::uint64_t seed, RoundOrder round_order,
              bool paired = false) {
  Plan plan;
  plan.processes = m.protocol.processes;
  plan.variants = std::move(variants);
  give_distinct_labels(plan.variants);

  std::vector<std::vector<int>> cells_of_variant(plan.variants.size());
  for (std::size_t v = 0; v < plan.variants.size(); ++v)
    for (Workload w : m.workloads)
      for (std::size_t size : m.sizes)
        for (const Alignment& a : m.alignments)
          for (std::size_t live : m.lives) {
            if (plan.variants[v].backend == "arena" && w != Workload::workingset)
              throw UsageError(fmt::format(
                  "{}: backend 'arena' runs only the workingset workload, not '{}': a bump arena frees "
                  "nothing until it is reset, so any other workload would grow without bound", m.path, name_of(w)));
            CellSpec spec{static_cast<int>(plan.cells.size()), w, plan.variants[v].policy, size, a, live};
            // A paced pair keeps both sides' processes of a cell alive at once.
            const std::uint64_t processes_alive = m.protocol.interleave_batches ? 2 : 1;
            if (processes_alive * cell_footprint_bytes(spec) > physical_memory_bytes())
              throw UsageError(fmt::format(
                  "{}: cell '{}' would keep {} bytes live{}, more than this machine's {} bytes "
                  "of memory (lower the size or the live count{})",
                  m.path, cell_label(spec), processes_alive * cell_footprint_bytes(spec),
                  processes_alive == 2 ? " in the two processes of a paced pair" : "", physical_memory_bytes(),
                  processes_alive == 2 ? ", or use --interleave cell" : ""));
            cells_of_variant[v].push_back(spec.id);
            plan.cells.push_back({spec, v});
          }

  if (m.protocol.counts)
    for (const PlannedCell& cell : plan.cells)
      plan.jobs.push_back({WorkerMode::count, 0, cell.variant, {cell.spec.id}, 0});

  const std::size_t cells_per_variant = cells_of_variant.empty() ? 0 : cells_of_variant[0].size();
  // Timed seeds do not depend on whether counting jobs come first: a gate run without
  // counts must give its processes the cell orders its baseline's processes had.
  const std::size_t counting_jobs = plan.jobs.size();
  for (int round = 0; round < m.protocol.processes; ++round) {
    const std::vector<std::size_t> order = round_order(plan.variants.size(), round);
    auto add_job = [&](std::size_t v, std::vector<int> ids) {
      const std::uint64_t job_seed =
          paired ? mix(seed + static_cast<std::uint64_t>(round) * 1000003u + (v / 2) * 7919u + (ids.size() == 1 ? static_cast<std::uint64_t>(ids[0] % static_cast<int>(std::max<std::size_t>(cells_per_variant, 1))) * 31u : 0u))
                 : mix(seed + (plan.jobs.size() - counting_jobs));
      plan.jobs.push_back({WorkerMode::time, round, v, std::move(ids), job_seed});
    };
    if (m.protocol.fresh_process_per_cell) {
      for (std::size_t c = 0; c < cells_per_variant; ++c)
        for (std::size_t v : order) add_job(v, {cells_of_variant[v][c]});
    } else {
      for (std::size_t v : order) add_job(v, cells_of_variant[v]);
    }
  }
  return plan;
}

}  // namespace

Plan make_plan(const Matrix& m, std::uint64_t seed) {
  std::vector<Variant> variants;
  for (const auto& backend : m.backends)
    for (Policy policy : m.policies) {
      Variant v;
      v.backend = backend;
      v.policy = policy;
      v.entry = m.entry_set;
      variants.push_back(v);
    }
  return schedule(m, std::move(variants), seed, rotated);
}

Plan make_variant_plan(const Matrix& m, std::vector<Variant> variants, std::uint64_t seed) {
  return schedule(m, std::move(variants), seed, rotated);
}

Plan make_compare_plan(const Matrix& m, const std::vector<Variant>& baselines,
                       const std::vector<Variant>& candidates, std::uint64_t seed) {
  std::vector<Variant> variants;
  for (std::size_t i = 0; i < baselines.size() && i < candidates.size(); ++i) {
    variants.push_back(baselines[i]);
    variants.push_back(candidates[i]);
  }
  Plan plan = schedule(m, std::move(variants), seed, pairs_alternating, true);
  const std::size_t per_variant = plan.cells.size() / std::max<std::size_t>(plan.variants.size(), 1);
  plan.partner.resize(plan.cells.size());
  for (const PlannedCell& cell : plan.cells) {
    const std::size_t offset = static_cast<std::size_t>(cell.spec.id) % per_variant;
    plan.partner[static_cast<std::size_t>(cell.spec.id)] = static_cast<int>((cell.variant ^ 1) * per_variant + offset);
  }
  return plan;
}

}  // namespace abench
