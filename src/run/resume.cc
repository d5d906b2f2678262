#include "src/run/resume.h"

#include <algorithm>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"

namespace abench {
namespace {

ProcessMeasurement measurement_from(const nlohmann::json& p, const MetricNames& names) {
  ProcessMeasurement m;
  m.round = whole_number<int>(p.at("round"), "round") - 1;
  m.pid = whole_number<long>(p.at("pid"), "pid");
  m.cpu = whole_number<int>(p.at("cpu"), "cpu");
  m.seed = whole_number<std::uint64_t>(p.at("seed"), "seed");
  m.iterations = whole_number<std::uint64_t>(p.at("iterations"), "iterations");
  m.warmup_batches = whole_number<int>(p.at("warmup_batches"), "warmup_batches");
  m.warm = p.value("warm", true);
  if (p.contains("sample_iterations")) read_field(p, "sample_iterations", m.sample_iterations);
  m.median_ns_per_op = p.at(names.process_median).get<double>();
  m.sample_ns_per_op = p.at(names.samples).get<std::vector<double>>();
  if (p.contains("data_accesses_per_op")) m.data_accesses_per_op = p["data_accesses_per_op"].get<double>();
  if (p.contains("counter_samples_per_op"))
    m.counter_samples_per_op = p["counter_samples_per_op"].get<std::map<std::string, std::vector<double>>>();
  return m;
}

}  // namespace

void restore_cell(CellRecord& cell, const nlohmann::json& c, const MetricNames& names) {
  for (const auto& p : c.at("processes")) cell.processes.push_back(measurement_from(p, names));
  cell.failures = c.at("errors").get<std::vector<std::string>>();
  if (c.value("refusal", nlohmann::json()).is_string()) cell.refusal = c["refusal"].get<std::string>();
  if (c.at("counts").is_object()) {
    nlohmann::json counts = c["counts"];
    counts["id"] = cell.cell.spec.id;
    counts["status"] = "ok";
    cell.counts = counts.get<CellCounts>();
  }
  if (c.at("counts_unavailable").is_string()) cell.counts_unavailable = c["counts_unavailable"].get<std::string>();
  std::vector<int> rounds;
  read_field(c, "finished_rounds", rounds);
  for (int round : rounds) cell.rounds_done.push_back(round - 1);
  cell.counting_done = c.at("counting_finished").get<bool>();
}

std::vector<std::optional<WorkerHello>> hellos_as_stored(const nlohmann::json& stored) {
  std::vector<std::optional<WorkerHello>> hellos;
  for (const auto& v : stored.at("variants")) {
    if (!v.contains("malloc_object")) {  // no worker of this variant started
      hellos.emplace_back();
      continue;
    }
    WorkerHello h;
    h.backend = v.at("backend").get<std::string>();
    for (const StoredHelloField& field : kStoredHelloFields) h.*field.member = v.value(field.key, "");
    hellos.push_back(std::move(h));
  }
  return hellos;
}

std::vector<std::string> without_options(const std::vector<std::string>& line,
                                         std::initializer_list<std::string_view> options) {
  std::vector<std::string> kept;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const std::string& a = line[i];
    const auto named = [&](std::string_view option) { return a == option; };
    const auto joined = [&](std::string_view option) { return a.starts_with(option) && a.size() > option.size() && a[option.size()] == '='; };
    if (std::any_of(options.begin(), options.end(), named)) {
      ++i;  // and its value
    } else if (std::none_of(options.begin(), options.end(), joined)) {
      kept.push_back(a);
    }
  }
  return kept;
}

std::vector<std::string> resume_command_line(const std::filesystem::path& dir, const std::string& command,
                                             const std::string& program) {
  const std::string path = (dir / "results.json").string();
  const nlohmann::json stored = read_json_file(path, "--resume");
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
    args.insert(args.end(), {"--seed", std::to_string(whole_number<std::uint64_t>(stored.at("protocol").at("seed"), "protocol.seed")), "--out",
                             dir.string()});
    return args;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("--resume {}: {} is not an abench results file: {}", dir.string(), path, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--resume {}: {} is not an abench results file: {}", dir.string(), path, e.what()));
  }
}

void restore_finished(RunResults& results, const nlohmann::json& stored, const std::string& path) {
  try {
    const auto& cells = stored.at("cells");
    if (cells.size() != results.cells.size())
      throw UsageError(fmt::format("--resume: {} has {} cells, the same command plans {} now (did the matrix file "
                                   "change?); nothing was run", path, cells.size(), results.cells.size()));
    const MetricNames& names = metric_names(results.protocol.measure);
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const auto& c = cells[i];
      CellRecord& cell = results.cells[i];
      const std::string label = results.plan.variants[cell.cell.variant].label();
      if (whole_number<int>(c.at("id"), "id") != cell.cell.spec.id || c.at("variant").get<std::string>() != label ||
          whole_number<std::size_t>(c.at("size"), "size") != cell.cell.spec.size || whole_number<std::size_t>(c.at("live"), "live") != cell.cell.spec.live)
        throw UsageError(fmt::format("--resume: cell {} of {} is not the cell the same command plans now (did the "
                                     "matrix file change?); nothing was run", i, path));
      restore_cell(cell, c, names);
    }
    results.earlier_workers = stored.at("workers");
    results.stored_hellos = hellos_as_stored(stored);
    results.run_id = stored.at("run_id").get<std::string>();  // rounds pair within one run id
    results.started_at = stored.at("started_at").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("--resume: {} cannot be resumed: {}", path, e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("--resume: {} cannot be resumed: {}", path, e.what()));
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
