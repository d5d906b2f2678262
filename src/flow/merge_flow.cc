#include "src/flow/merge_flow.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "src/exports/format_registry.h"
#include "src/flow/measure_setup.h"
#include "src/flow/merged_gate.h"
#include "src/flow/stored_baseline.h"
#include "src/flow/verdict_files.h"
#include "src/flow/output_directory.h"
#include "src/merge/shards.h"
#include "src/report/report_writer.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/run/execute.h"
#include "src/util/comment_markdown.h"
#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/text.h"
#include "src/verdict/compare.h"
#include "src/util/json_file.h"
#include "src/verdict/compare_file.h"
#include "src/verdict/noise_floors.h"

namespace abench {
namespace {

// The values of `option` on a stored command line ("--format a,b" or "--format=a,b").
std::vector<std::string> option_values(const std::vector<std::string>& line, const std::string& option) {
  std::vector<std::string> values;
  auto add = [&](const std::string& text) {
    for (std::string& item : split_on_commas(text)) values.push_back(std::move(item));
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == option && i + 1 < line.size())
      add(line[++i]);
    else if (line[i].starts_with(option + "="))
      add(line[i].substr(option.size() + 1));
  }
  return values;
}

// calibrate's shards: the noise floors judged again from the merged runs (a shard's own
// floors are never copied), stored under results/baselines/ only as --save-noise names it.
void merge_noise(const std::vector<ShardResults>& shards, const std::vector<RunResults>& runs,
                 const std::filesystem::path& dir, const std::string& save_noise) {
  NoiseFile noise;
  const bool side_by_side = !runs.empty() && !runs.front().plan.partner.empty();
  noise.about = noise_about(runs, side_by_side);  // from the merged runs, never a shard's file
  const std::filesystem::path store =
      save_noise.empty() ? std::filesystem::path() : baseline_store(save_noise, "--save-noise");
  // Sequential floors count the stored baseline's own figures, as calibrate does.
  std::optional<RunResults> stored;
  if (!side_by_side && !store.empty() && std::filesystem::exists(store / "results.json"))
    stored = load_results((store / "results.json").string());
  noise.floors = noise_floors(runs, stored ? &*stored : nullptr, side_by_side);
  noise.about["merged_shards"] = shards.size();
  write_noise_file(noise, dir);
  fmt::print("noise floors of {} cells from {} shards, judged again from their runs: {}\n", noise.floors.size(),
             shards.size(), (dir / "noise.json").string());
  if (store.empty()) {
    fmt::print("not stored as a baseline's floors: give --save-noise NAME to store them\n");
    return;
  }
  prepare_baseline_store(store);
  write_noise_file(noise, store);
  fmt::print("stored: {}\n", (store / "noise.json").string());
}

// A compare's shards are judged again at the settings merge is given; each shard's
// compare.json (read by the one reader, every verdict checked) must have judged alike.
VerdictSettings compare_settings(const std::vector<ShardResults>& shards, const MergeRequest& o) {
  VerdictSettings settings;
  settings.confidence = o.confidence;
  settings.min_effect = o.min_effect_percent / 100;
  settings.detect = o.detect_percent / 100;
  for (const ShardResults& shard : shards) {
    const std::string path = (shard.dir / "compare.json").string();
    const VerdictSettings stored =
        comparison_from_json(read_json_file_below(shard.dir, "compare.json", "the compare file"), path).settings;
    if (std::abs(stored.confidence - settings.confidence) > 1e-9 ||
        std::abs(stored.min_effect - settings.min_effect) > 1e-9 || std::abs(stored.detect - settings.detect) > 1e-9)
      throw UsageError(
          fmt::format("abench merge: {} judges at confidence {:g}, minimum effect {:g}% and margin ±{:g}%, "
                      "merge at {:g}, {:g}% and ±{:g}%: give abench merge the --confidence, --min-effect "
                      "and --detect the shards ran with; nothing was merged",
                      path, stored.confidence, stored.min_effect * 100, stored.detect * 100, settings.confidence,
                      settings.min_effect * 100, settings.detect * 100));
  }
  return settings;
}

MergedGateRules merged_gate_rules(const std::vector<ShardResults>& shards, const MergeRequest& o,
                                  const VerdictSettings& compare_settings) {
  MergedGateRules j;
  j.rules = gate_rules(o.gate);
  if (!o.baseline.empty()) {
    j.baseline_path = resolve_stored(o.baseline, "results.json");
    j.baseline = load_results(j.baseline_path);
  }
  j.noise = gate_noise(o.gate, j.baseline_path);
  // compare --gate judges at the compare's settings; gate at its confidence and the rule's
  // smallest effect.
  j.settings = shards.front().command == "compare" ? compare_settings
                                                   : VerdictSettings{VerdictSettings{}.min_effect, o.confidence};
  return j;
}

// Each measured run of the unsharded calibrate, joined: run1/, run2/, ... all read before
// anything is written.
std::vector<RunResults> merged_calibrate_runs(const std::vector<ShardResults>& shards,
                                              const std::vector<std::string>& command_line) {
  std::vector<RunResults> merged_runs;
  for (int run = 1; std::filesystem::exists(shards.front().dir / fmt::format("run{}", run)); ++run) {
    std::vector<ShardResults> runs;
    for (const ShardResults& shard : shards) {
      runs.push_back(shard);
      const std::filesystem::path relative = std::filesystem::path(fmt::format("run{}", run)) / "results.json";
      runs.back().path = (shard.dir / relative).string();
      runs.back().results = load_results_below(shard.dir, relative);
      runs.back().canonical = results_to_json(runs.back().results);
    }
    merged_runs.push_back(merge_shards(runs, command_line));
  }
  return merged_runs;
}

// The shards, read and checked to belong together, in their order.
std::vector<ShardResults> read_shards(const MergeRequest& o) {
  std::vector<ShardResults> shards;
  for (const std::string& dir : o.dirs) shards.push_back(read_shard(dir));
  check_shards_belong_together(shards, o.across_machines);
  std::sort(shards.begin(), shards.end(), [](const auto& a, const auto& b) { return a.index < b.index; });
  if (!o.save_noise.empty()) baseline_store(o.save_noise, "--save-noise");  // the name checked first
  if (!o.save_noise.empty() && shards.front().command != "calibrate")
    throw UsageError(
        fmt::format("option --save-noise: these are shards of 'abench {}', not of calibrate: they hold no "
                    "noise floors",
                    shards.front().command));
  return shards;
}

MergeOutcome merge_calibrate(const MergeRequest& o, const std::vector<ShardResults>& shards, const RunResults& merged,
                             const std::vector<std::string>& command_line) {
  const std::vector<RunResults> merged_runs = merged_calibrate_runs(shards, command_line);
  const auto dir = prepare_output_dir(o.out, "merged-" + merged.matrix.name);  // after every check
  for (std::size_t run = 0; run < merged_runs.size(); ++run) {
    make_output_subdirectory(dir / fmt::format("run{}", run + 1));
    write_result_files(dir / fmt::format("run{}", run + 1), merged_runs[run]);
  }
  merge_noise(shards, merged_runs, dir, o.save_noise);
  return {};
}

}  // namespace

MergeOutcome run_merge(const MergeRequest& o, const std::vector<std::string>& command_line) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<ShardResults> shards = read_shards(o);
  const RunResults merged = merge_shards(shards, command_line);
  if (shards.front().command == "calibrate") return merge_calibrate(o, shards, merged, command_line);

  // Every verdict judged again from the merged measurements, before anything is written.
  const bool compared = std::filesystem::exists(shards.front().dir / "compare.json");
  const VerdictSettings settings = compared ? compare_settings(shards, o) : VerdictSettings{};
  const std::optional<Comparison> comparison =
      compared ? std::optional<Comparison>(compare_results(merged, settings)) : std::nullopt;
  MergeOutcome outcome;
  if (std::filesystem::exists(shards.front().dir / "gate.json"))
    outcome.gate = judge_merged_gate(shards, merged, merged_gate_rules(shards, o, settings));
  // The exports the shards' command asked for, from their stored command line: checked too.
  const std::vector<std::string> formats = option_values(merged.command_line, "--format");
  try {
    check_formats(formats, merged.protocol.measure);
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("abench merge: {}, as its command line is stored: {}; nothing was merged",
                                 shards.front().path, e.what()));
  }
  const auto dir = prepare_output_dir(o.out, "merged-" + merged.matrix.name);  // after every check

  write_result_files(dir, merged);
  write_formats(dir, merged, formats);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const RunTotals t = totals_of(merged);
  outcome.failed_cells = t.failed;
  fmt::print("{}\n", comparison ? terminal_part(write_compare_files(*comparison, dir)) : results_to_table(merged));
  fmt::print("{} shards merged: {} cells, {} failed, {} refused, {} unstable; {} processes per variant; merged in {}\n",
             shards.size(), t.cells, t.failed, t.refused, t.unstable, merged.protocol.processes, format_duration(wall));
  fmt::print("results: {}/results.json, {}/results.csv\n", dir.string(), dir.string());
  if (outcome.gate)
    write_gate_files(*outcome.gate, dir, !o.no_report);
  else if (!o.no_report)
    write_report_or_warn(dir);
  return outcome;
}

}  // namespace abench
