#include "src/plan/plan.h"

#include "allocators/backends.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/buffer.h"
#include "harness/workloads.h"
#include "src/util/errors.h"

namespace abench {

std::vector<CellSpec> variant_cells(const Matrix& m, Policy policy, int first_id) {
  std::vector<CellSpec> cells;
  for (Workload w : m.workloads)
    for (std::size_t size : m.sizes)
      for (const Alignment& a : m.alignments)
        for (std::size_t live : m.lives)
          cells.push_back({first_id + static_cast<int>(cells.size()), w, policy, size, a, live});
  return cells;
}

bool same_work(const CellSpec& a, const CellSpec& b) {
  return a.workload == b.workload && a.policy == b.policy && a.size == b.size && a.live == b.live &&
         a.alignment.requested == b.alignment.requested && a.alignment.preferred == b.alignment.preferred;
}

std::uint64_t mix_seed(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {

// The two sides of a pair share their cell-order seed (see schedule).
std::uint64_t paired_seed(std::uint64_t seed, int round, std::size_t variant, std::size_t position) {
  return mix_seed(seed + static_cast<std::uint64_t>(round) * 1000003u + (variant / 2) * 7919u + position * 31u);
}

}  // namespace

std::string cell_label(const CellSpec& c) {
  return fmt::format("{} {} a{}:{} L{}", name_of(c.workload), c.size, c.alignment.requested, c.alignment.preferred,
                     c.live);
}

std::uint64_t cell_footprint_bytes(const CellSpec& cell) {
  const ExpectedBuffer expected = expected_buffer(cell.workload, cell.size);
  const std::uint64_t capacity = std::max<std::uint64_t>(grown_capacity(cell.size, expected.min_capacity), cell.size);
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
    for (const CellSpec& spec : variant_cells(m, plan.variants[v].policy, static_cast<int>(plan.cells.size()))) {
      if (const BackendTraits* b = backend_named(plan.variants[v].backend);
          b && b->only_workload && *b->only_workload != spec.workload)
        throw UsageError(fmt::format("{}: backend '{}' runs only the {} workload, not '{}': {}", m.path, b->name,
                                     name_of(*b->only_workload), name_of(spec.workload), b->why_only));
      // A paced pair keeps both sides' processes of a cell alive at once.
      const std::uint64_t processes_alive = m.protocol.interleave_batches ? 2 : 1;
      if (processes_alive * cell_footprint_bytes(spec) > physical_memory_bytes())
        throw UsageError(
            fmt::format("{}: cell '{}' would keep {} bytes live{}, more than this machine's {} bytes "
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
          paired ? paired_seed(seed, round, v,
                               ids.size() == 1
                                   ? static_cast<std::size_t>(ids[0]) % std::max<std::size_t>(cells_per_variant, 1)
                                   : 0)
                 : mix_seed(seed + (plan.jobs.size() - counting_jobs));
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

// Where a cell of this plan sits in the whole plan (itself, or the plan it is a shard of).
struct WholePlanPlace {
  std::size_t variant, position, positions;
};
WholePlanPlace whole_plan_place(const Plan& plan, int id) {
  const std::size_t variants = std::max<std::size_t>(plan.variants.size(), 1);
  const std::size_t cells = plan.shard ? plan.shard->plan_cells : plan.cells.size();
  const int whole_id = plan.shard ? plan.shard->plan_ids[static_cast<std::size_t>(id)] : id;
  const std::size_t positions = std::max<std::size_t>(cells / variants, 1);
  return {plan.cells[static_cast<std::size_t>(id)].variant, static_cast<std::size_t>(whole_id) % positions, positions};
}

}  // namespace

std::vector<Job> round_jobs_for_cells(const Plan& plan, std::uint64_t seed, int round,
                                      const std::vector<int>& cell_ids) {
  const bool paired = !plan.partner.empty();
  const std::size_t variants = plan.variants.size();
  const std::vector<std::size_t> order = paired ? pairs_alternating(variants, round) : rotated(variants, round);
  std::vector<Job> jobs;
  for (int id : cell_ids) {
    const WholePlanPlace place = whole_plan_place(plan, id);
    // Both sides of a pair in one round: the side the round's order puts first goes first.
    std::vector<int> unit{id};
    if (paired) {
      const int partner = plan.partner[static_cast<std::size_t>(id)];
      const bool baseline_first = round % 2 == 0;  // as pairs_alternating orders them
      unit = (place.variant % 2 == 0) == baseline_first ? std::vector<int>{id, partner} : std::vector<int>{partner, id};
    }
    for (int cell : unit) {
      const WholePlanPlace at = whole_plan_place(plan, cell);
      const auto rank = static_cast<std::size_t>(std::find(order.begin(), order.end(), at.variant) - order.begin());
      // The seed a full round of processes of their own would give it (schedule above).
      const std::uint64_t job_seed = paired
                                         ? paired_seed(seed, round, at.variant, at.position)
                                         : mix_seed(seed + static_cast<std::uint64_t>(round) * at.positions * variants +
                                                    at.position * variants + rank);
      jobs.push_back({WorkerMode::time, round, at.variant, {cell}, job_seed});
    }
  }
  return jobs;
}

std::vector<Variant> matrix_variants(const Matrix& m) {
  std::vector<Variant> variants;
  for (const auto& backend : m.backends)
    for (Policy policy : m.policies) {
      Variant v;
      v.backend = backend;
      v.policy = policy;
      v.entry = m.entry_set;
      variants.push_back(v);
    }
  return variants;
}

Plan make_plan(const Matrix& m, std::uint64_t seed) { return schedule(m, matrix_variants(m), seed, rotated); }

Plan make_variant_plan(const Matrix& m, std::vector<Variant> variants, std::uint64_t seed) {
  return schedule(m, std::move(variants), seed, rotated);
}

namespace {

// Pair i's baseline as variant 2i, its candidate as 2i+1.
std::vector<Variant> sides_interleaved(const std::vector<Variant>& baselines, const std::vector<Variant>& candidates) {
  std::vector<Variant> variants;
  for (std::size_t i = 0; i < baselines.size() && i < candidates.size(); ++i) {
    variants.push_back(baselines[i]);
    variants.push_back(candidates[i]);
  }
  return variants;
}

// Each cell's partner: the cell at its place in the other variant of its pair (variant ^ 1).
void pair_partners(Plan& plan) {
  const std::size_t per_variant = plan.cells.size() / std::max<std::size_t>(plan.variants.size(), 1);
  plan.partner.resize(plan.cells.size());
  for (const PlannedCell& cell : plan.cells) {
    const std::size_t offset = static_cast<std::size_t>(cell.spec.id) % per_variant;
    plan.partner[static_cast<std::size_t>(cell.spec.id)] = static_cast<int>((cell.variant ^ 1) * per_variant + offset);
  }
}

}  // namespace

Plan make_compare_plan(const Matrix& m, const std::vector<Variant>& baselines, const std::vector<Variant>& candidates,
                       std::uint64_t seed) {
  Plan plan = schedule(m, sides_interleaved(baselines, candidates), seed, pairs_alternating, true);
  pair_partners(plan);
  return plan;
}

namespace {

// A --context plan's processes: a fresh variant's timed processes run one cell each (a
// process per round and cell); an in-matrix variant's counting run is one process over all
// its cells, in the order its first timed process ran them, so its counts carry the same
// history.
void give_fresh_variants_a_process_per_cell(Plan& plan, const std::vector<bool>& fresh) {
  std::vector<Job> jobs, in_matrix_counts(plan.variants.size());
  for (Job& job : plan.jobs) {
    const bool fresh_side = fresh[job.variant];
    if (job.mode == WorkerMode::count && !fresh_side) {
      Job& merged = in_matrix_counts[job.variant];
      merged.mode = WorkerMode::count;
      merged.variant = job.variant;
      merged.cell_ids.insert(merged.cell_ids.end(), job.cell_ids.begin(), job.cell_ids.end());
    } else if (job.mode == WorkerMode::time && fresh_side && job.cell_ids.size() > 1) {
      for (int id : job.cell_ids) jobs.push_back({WorkerMode::time, job.round, job.variant, {id}, job.seed});
    } else {
      if (job.mode == WorkerMode::time && !fresh_side && job.round == 0) in_matrix_counts[job.variant].seed = job.seed;
      jobs.push_back(std::move(job));
    }
  }
  std::vector<Job> counts;
  for (Job& merged : in_matrix_counts)
    if (!merged.cell_ids.empty()) counts.push_back(std::move(merged));
  jobs.insert(jobs.begin(), counts.begin(), counts.end());  // counting jobs first, as in every plan
  plan.jobs = std::move(jobs);
}

// The variants as given, each label distinct, and their fresh twins named after them.
std::vector<Variant> fresh_twins(std::vector<Variant>& variants) {
  give_distinct_labels(variants);
  // Which variants are fresh is read back from the labels (src/verdict/context.h).
  for (const Variant& v : variants)
    if (v.label().ends_with(kFreshSuffix))
      throw UsageError(
          fmt::format("option --context: variant '{}' has a label ending in '{}', which --context gives "
                      "the fresh twins; choose another label",
                      v.label(), kFreshSuffix));
  std::vector<Variant> fresh = variants;
  for (Variant& v : fresh) v.name = v.label() + std::string(kFreshSuffix);
  return fresh;
}

// Every round in the opposite order of the one before, so that each pair the verdicts
// judge (the two sides in the matrix; each side in the matrix and fresh) alternates which
// goes first.
std::vector<std::size_t> reversed_every_other_round(std::size_t variants, int round) {
  std::vector<std::size_t> order(variants);
  for (std::size_t v = 0; v < variants; ++v) order[v] = round % 2 == 0 ? v : variants - 1 - v;
  return order;
}

}  // namespace

Plan make_context_plan(const Matrix& m, const std::vector<Variant>& variants, std::uint64_t seed) {
  std::vector<Variant> in_matrix = variants;
  const std::vector<Variant> fresh = fresh_twins(in_matrix);
  Plan plan = make_compare_plan(m, fresh, in_matrix, seed);
  std::vector<bool> is_fresh(plan.variants.size());
  for (std::size_t v = 0; v < is_fresh.size(); v += 2) is_fresh[v] = true;
  give_fresh_variants_a_process_per_cell(plan, is_fresh);
  return plan;
}

Plan make_compare_context_plan(const Matrix& m, const std::vector<Variant>& baselines,
                               const std::vector<Variant>& candidates, std::uint64_t seed) {
  std::vector<Variant> variants = sides_interleaved(baselines, candidates);
  const std::vector<Variant> fresh = fresh_twins(variants);
  const std::size_t in_matrix = variants.size();
  variants.insert(variants.end(), fresh.begin(), fresh.end());
  Plan plan = schedule(m, std::move(variants), seed, reversed_every_other_round, true);
  pair_partners(plan);
  std::vector<bool> is_fresh(plan.variants.size());
  for (std::size_t v = in_matrix; v < is_fresh.size(); ++v) is_fresh[v] = true;
  give_fresh_variants_a_process_per_cell(plan, is_fresh);
  return plan;
}

}  // namespace abench
