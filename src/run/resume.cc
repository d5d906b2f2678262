#include "src/run/resume.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/run/run_origin.h"

namespace abench {
std::vector<std::string> without_options(const std::vector<std::string>& line,
                                         std::initializer_list<std::string_view> options) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const std::string& a = line[i];
    const auto named = [&](std::string_view option) { return a == option; };
    const auto joined = [&](std::string_view option) {
      return a.starts_with(option) && a.size() > option.size() && a[option.size()] == '=';
    };
    if (std::any_of(options.begin(), options.end(), named)) {
      ++i;  // and its value
    } else if (std::none_of(options.begin(), options.end(), joined)) {
      kept.push_back(a);
    }
  }
  return kept;
}

StoredCommand resume_command_line(const std::filesystem::path& dir, const std::string& command,
                                  const std::string& program) {
  const std::string path = (dir / "results.json").string();
  const nlohmann::json stored = read_json_file_below(dir, "results.json", "--resume");
  try {
    if (stored.at("complete").get<bool>())
      throw UsageError(fmt::format("--resume {}: that run is complete; nothing to resume", dir.string()));
    const auto line = stored.at("command_line").get<std::vector<std::string>>();
    if (line.size() < 2 || line[1] != command)
      throw UsageError(fmt::format("--resume {}: {} holds a run of 'abench {}', not of 'abench {}'", dir.string(), path,
                                   line.size() < 2 ? "?" : line[1], command));
    // Both replaced below.
    std::vector<std::string> args = without_options({line.begin() + 2, line.end()}, {"--out", "--seed"});
    args.insert(args.begin(), {program, command});
    args.insert(
        args.end(),
        {"--seed", std::to_string(whole_number<std::uint64_t>(stored.at("protocol").at("seed"), "protocol.seed")),
         "--out", dir.string()});
    return {args, run_origin_unrecorded_because(dir, stored.at("run_id").get<std::string>(), line)};
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("--resume {}: {} is not an abench results file: {}", dir.string(), path, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--resume {}: {} is not an abench results file: {}", dir.string(), path, e.what()));
  }
}

void restore_finished(RunResults& results, const nlohmann::json& json, const std::string& path) {
  const RunResults stored = results_from_json(json, path);
  if (!stored.stored_batch_rules.is_null() && stored.stored_batch_rules != batch_rules_json())
    throw UsageError(
        fmt::format("--resume: {} was measured by a build that sized its batches otherwise (its "
                    "protocol.batch differs from this build's); its cells and new ones would not "
                    "be alike: run it again; nothing was run",
                    path));
  if (stored.cells.size() != results.cells.size())
    throw UsageError(
        fmt::format("--resume: {} has {} cells, the same command plans {} now (did the matrix file "
                    "change?); nothing was run",
                    path, stored.cells.size(), results.cells.size()));
  for (std::size_t i = 0; i < stored.cells.size(); ++i) {
    const CellRecord& done = stored.cells[i];
    CellRecord& cell = results.cells[i];
    const CellSpec& a = done.cell.spec;
    const CellSpec& b = cell.cell.spec;
    if (stored.plan.variants[done.cell.variant].label() != results.plan.variants[cell.cell.variant].label() ||
        !same_work(a, b))
      throw UsageError(
          fmt::format("--resume: cell {} of {} is not the cell the same command plans now (did the "
                      "matrix file change?); nothing was run",
                      i, path));
    // Rounds the plan as resumed would never run (the file's protocol edited apart from its
    // command line) would pass for its own.
    const int rounds =
        std::max(results.protocol.processes, results.protocol.until_interval > 0 ? results.protocol.max_rounds : 0);
    std::vector<int> stored_rounds = done.rounds_done;
    for (const ProcessMeasurement& p : done.processes) stored_rounds.push_back(p.round);
    for (const int round : stored_rounds)
      if (round >= rounds)
        throw UsageError(
            fmt::format("--resume: cell {} of {} holds round {}, but the command stored there plans {} "
                        "round{}; nothing was run",
                        i, path, round + 1, rounds, rounds == 1 ? "" : "s"));
    take_measurements(cell, done);
    resummarize(cell, results.protocol);
  }
  results.earlier_workers = stored.earlier_workers;
  results.stored_hellos = stored.stored_hellos;
  results.run_id = stored.run_id;  // rounds pair within one run id
  results.started_at = stored.started_at;
}

void check_same_timed_loops(const RunResults& results, const std::vector<std::string>& loops, const std::string& path) {
  for (std::size_t v = 0; v < results.stored_hellos.size() && v < loops.size(); ++v) {
    const std::optional<WorkerHello>& stored = results.stored_hellos[v];
    if (!stored || stored->timed_loop == loops[v]) continue;
    throw UsageError(
        fmt::format("--resume: {} measured variant '{}' with {}, and its worker now runs {} (harness/cell_runner.cc "
                    "compiled otherwise): one cell's figures must come from one loop; run it again; nothing was run",
                    path, results.plan.variants[v].label(), timed_loop_phrase(printable(stored->timed_loop)),
                    timed_loop_phrase(loops[v])));
  }
}

std::vector<Job> jobs_left(const RunResults& results) {
  std::vector<Job> left;
  for (Job job : results.plan.jobs) {
    std::erase_if(job.cell_ids, [&](int id) {
      const CellRecord& cell = results.cells[static_cast<std::size_t>(id)];
      return job.mode == WorkerMode::count
                 ? cell.counting_done
                 : std::count(cell.rounds_done.begin(), cell.rounds_done.end(), job.round) > 0;
    });
    if (!job.cell_ids.empty()) left.push_back(std::move(job));
  }
  return left;
}

}  // namespace abench
