#include "src/results/paired_view.h"

#include <map>
#include <optional>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {

RunResults paired_view(const RunResults& results,
                       const std::vector<std::pair<std::size_t, std::size_t>>& variant_pairs) {
  // The run's metadata as it is; its plan, cells, workers and hellos are laid out anew.
  RunResults view = results;
  view.plan = Plan{};
  view.plan.processes = results.plan.processes;
  view.cells.clear();
  view.workers.clear();
  view.stored_hellos.clear();

  std::vector<std::vector<int>> cells_of(results.plan.variants.size());
  for (const CellRecord& c : results.cells) cells_of.at(c.cell.variant).push_back(c.cell.spec.id);
  std::map<std::size_t, std::size_t> new_variant;
  std::map<int, int> new_cell;
  for (const auto& [one, two] : variant_pairs) {
    // The k-th cells of the two are paired: they must measure the same work, whatever file
    // the results came from.
    const auto& a = cells_of.at(one);
    const auto& b = cells_of.at(two);
    bool alike = a.size() == b.size();
    for (std::size_t k = 0; alike && k < a.size(); ++k)
      alike = same_work(results.cells[static_cast<std::size_t>(a[k])].cell.spec,
                        results.cells[static_cast<std::size_t>(b[k])].cell.spec);
    if (!alike)
      throw UsageError(
          fmt::format("variants '{}' and '{}' are judged against each other but do not measure the same "
                      "cells in the same order",
                      results.plan.variants[one].label(), results.plan.variants[two].label()));
    for (std::size_t old : {one, two}) {
      new_variant[old] = view.plan.variants.size();
      view.plan.variants.push_back(results.plan.variants[old]);
      view.stored_hellos.push_back(old < results.stored_hellos.size() ? results.stored_hellos[old] : std::nullopt);
      for (int id : cells_of[old]) {
        CellRecord cell = results.cells[static_cast<std::size_t>(id)];
        new_cell[id] = static_cast<int>(view.cells.size());
        cell.cell.spec.id = static_cast<int>(view.cells.size());
        cell.cell.variant = new_variant[old];
        view.plan.cells.push_back(cell.cell);
        view.cells.push_back(std::move(cell));
      }
    }
  }
  // Partners by position: the k-th cell of variant 2i with the k-th of 2i+1.
  view.plan.partner.resize(view.cells.size());
  std::size_t first = 0;
  for (const auto& [one, two] : variant_pairs) {
    const std::size_t n = cells_of[one].size();
    for (std::size_t k = 0; k < n; ++k) {
      view.plan.partner[first + k] = static_cast<int>(first + n + k);
      view.plan.partner[first + n + k] = static_cast<int>(first + k);
    }
    first += 2 * n;
  }
  const auto renumbered = [&](Job job) -> std::optional<Job> {
    const auto v = new_variant.find(job.variant);
    if (v == new_variant.end()) return std::nullopt;
    job.variant = v->second;
    for (int& id : job.cell_ids) id = new_cell.at(id);
    return job;
  };
  for (const Job& job : results.plan.jobs)
    if (auto j = renumbered(job)) view.plan.jobs.push_back(std::move(*j));
  for (const WorkerRecord& w : results.workers)
    if (auto j = renumbered(w.job)) {
      WorkerRecord copy = w;
      copy.job = std::move(*j);
      view.workers.push_back(std::move(copy));
    }
  return view;
}

}  // namespace abench
