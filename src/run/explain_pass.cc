#include "src/run/explain_pass.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/machine/virtualization.h"
#include "src/run/execute.h"
#include "src/run/hot_path.h"
#include "src/util/errors.h"

namespace abench {

void check_explain_possible_here() {
  if (const auto emulator = emulator_of_this_process())
    throw UsageError(
        fmt::format("option --explain: not supported under emulation ({}): callgrind cannot run an "
                    "emulated worker; nothing was measured",
                    *emulator));
  valgrind_path();  // installed, or an error before anything runs
}

RunProtocol explain_protocol(const RunProtocol& timed) {
  RunProtocol p = timed;
  p.measure = Measure::instructions;
  p.samples = 1;  // a count repeats exactly within a process
  p.processes = kExplainProcesses;
  p.counts = false;  // the timed run counted them
  p.counts_beside = false;
  p.fresh_process_per_cell = false;
  p.interleave_batches = false;
  p.until_interval = 0;
  p.max_rounds = 0;
  p.budget_s = 0;
  p.worker_timeout_s = 0;
  p.seed = 1;  // the same orders in every run: the counts of one build repeat between commands
  return p;
}

RunResults run_explain_pass(const Plan& timed, const Matrix& matrix, const std::filesystem::path& dir,
                            const std::vector<std::string>& command_line) {
  Matrix instrumented = matrix;
  instrumented.protocol = explain_protocol(matrix.protocol);
  // The same variants and cells as the timed plan; a compare's two sides share each
  // process's cell order, so an unchanged build counts the same on both.
  Plan plan;
  if (timed.partner.empty()) {
    plan = make_variant_plan(instrumented, timed.variants, instrumented.protocol.seed);
  } else {
    std::vector<Variant> baselines, candidates;
    for (std::size_t v = 0; v + 1 < timed.variants.size(); v += 2) {
      baselines.push_back(timed.variants[v]);
      candidates.push_back(timed.variants[v + 1]);
    }
    plan = make_compare_plan(instrumented, baselines, candidates, instrumented.protocol.seed);
  }
  for (std::size_t c = 0; c < plan.cells.size(); ++c)
    if (c >= timed.cells.size() || !same_work(plan.cells[c].spec, timed.cells[c].spec))
      throw std::logic_error("the instrumented plan's cells are not the timed plan's");
  const std::filesystem::path out = dir / kExplainDirectory;
  std::filesystem::create_directories(out);
  const bool resume = std::filesystem::exists(out / "results.json");
  fmt::print(stderr,
             "explain: {} cells under callgrind (cache and branch simulation), {} instrumented processes a "
             "variant, into {}\n",
             plan.cells.size(), kExplainProcesses, out.string());
  RunResults results = execute_plan(std::move(plan), instrumented, out, command_line, resume);
  if (!results.interrupted_by) {
    const HotPathIndex hot = write_hot_paths(results, out);
    const auto listed = std::count_if(hot.listings.begin(), hot.listings.end(), [](const auto& l) { return l.listed; });
    fmt::print(stderr, "explain: {} of {} entry functions disassembled, {} pairs of them diffed, in {}/{}\n", listed,
               hot.listings.size(), hot.diffs.size(), out.string(), kHotPathDirectory);
  }
  return results;
}

}  // namespace abench
