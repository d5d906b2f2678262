#include "src/merge/shards.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/json_fields.h"
#include "src/util/errors.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/run/resume.h"
#include "src/util/json_file.h"
#include "src/util/names.h"
#include "src/util/timestamp.h"

namespace abench {
namespace {

std::string text_of(const nlohmann::json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// The first key of `fields` where a and b differ, or "".
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::vector<std::string>& fields) {
  for (const std::string& key : fields) {
    const nlohmann::json none;
    if ((a.contains(key) ? a[key] : none) != (b.contains(key) ? b[key] : none)) return key;
  }
  return "";
}

std::vector<std::string> keys_of(const nlohmann::json& object, const std::set<std::string>& except = {}) {
  std::vector<std::string> keys;
  if (object.is_object())
    for (const auto& [key, value] : object.items())
      if (!except.contains(key)) keys.push_back(key);
  return keys;
}

// A refusal naming both files, the field and both values.
[[noreturn]] void refuse(const ShardResults& a, const ShardResults& b, const std::string& field,
                         const nlohmann::json& va, const nlohmann::json& vb, const std::string& why) {
  throw UsageError(
      fmt::format("abench merge: field '{}' is {} in {} (shard {}/{}) but {} in {} (shard {}/{}): {}; "
                  "nothing was merged",
                  field, text_of(va), a.path, a.index, a.count, text_of(vb), b.path, b.index, b.count, why));
}

void check_same(const ShardResults& a, const ShardResults& b, const std::string& section,
                const std::vector<std::string>& fields, const std::string& why) {
  const nlohmann::json& sa = a.canonical.at(section);
  const nlohmann::json& sb = b.canonical.at(section);
  std::vector<std::string> all = fields;
  if (all.empty()) {
    all = keys_of(sa);
    for (const auto& key : keys_of(sb))
      if (std::find(all.begin(), all.end(), key) == all.end()) all.push_back(key);
  }
  if (const std::string key = first_difference(sa, sb, all); !key.empty())
    refuse(a, b, section + "." + key, sa.value(key, nlohmann::json()), sb.value(key, nlohmann::json()), why);
}

std::string fingerprint_of(const nlohmann::json& results) {
  const nlohmann::json& c = results.at("conditions");
  return c.contains("machine_fingerprint") ? text_of(c["machine_fingerprint"]) : "unknown";
}

std::string random_run_id() {
  std::random_device device;
  return fmt::format("{:016x}", std::uint64_t{device()} * 0x100000000ull + device());
}

}  // namespace

ShardResults read_shard(const std::filesystem::path& dir) {
  ShardResults shard;
  shard.dir = dir;
  const bool calibrate = !std::filesystem::exists(dir / "results.json") && std::filesystem::exists(dir / "noise.json");
  shard.path = (calibrate ? dir / "run1" / "results.json" : dir / "results.json").string();
  if (!std::filesystem::exists(shard.path))
    throw UsageError(
        fmt::format("abench merge: {} holds no results.json (nor a calibrate's noise.json): name the "
                    "output directory of a shard (--shard K/N); nothing was merged",
                    dir.string()));
  // The one reader: every field and cross-reference checked (plan_ids one plan cell per cell).
  shard.results = load_results_below(dir, std::filesystem::path(shard.path).lexically_relative(dir));
  if (!shard.results.plan.shard)
    throw UsageError(
        fmt::format("abench merge: {}: field 'shard' is missing: these results were not measured "
                    "with --shard K/N, so there is nothing to merge them with",
                    shard.path));
  shard.index = shard.results.plan.shard->index;
  shard.count = shard.results.plan.shard->count;
  const std::vector<std::string>& line = shard.results.command_line;
  shard.command = line.size() >= 2 ? line[1] : "";
  if (!shard.results.complete)
    throw UsageError(
        fmt::format("abench merge: {}: shard {}/{} is not finished (field 'complete' is false){}; nothing was merged",
                    shard.path, shard.index, shard.count,
                    shard.command == "run" || shard.command == "compare"
                        ? fmt::format(": finish it with abench {} --resume {}", shard.command, dir.string())
                        : ": run it again"));
  shard.canonical = results_to_json(shard.results);
  return shard;
}

void check_shards_belong_together(const std::vector<ShardResults>& shards, bool across_machines) {
  if (shards.empty()) throw UsageError("abench merge: name the shards' directories");
  const ShardResults& first = shards.front();
  try {
    for (const ShardResults& s : shards) {
      if (s.count != first.count)
        refuse(first, s, "shard.count", first.count, s.count, "they split the plan into different numbers of shards");
      if (s.command != first.command)
        refuse(first, s, "command_line[1]", first.command, s.command, "a merge joins shards of one command");
      check_same(first, s, "matrix",
                 {"name", "backends", "policies", "workloads", "sizes", "alignments", "live", "entry"},
                 "they measure different matrices");
      check_same(first, s, "protocol", {"seed"},
                 "shards of different seeds plan different cell orders; give every shard the same --seed");
      check_same(first, s, "protocol", {}, "they were measured under different protocols");
      check_same(first, s, "conditions", {"abench_version", "abench_git_revision"},
                 "they were measured by different versions of abench");
      check_same(first, s, "shard", {"plan_cells"}, "they are shards of different plans");
      const auto& va = first.canonical.at("variants");
      const auto& vb = s.canonical.at("variants");
      if (va.size() != vb.size())
        refuse(first, s, "variants", fmt::format("{} variants", va.size()), fmt::format("{} variants", vb.size()),
               "they measure different variants");
      for (std::size_t v = 0; v < va.size(); ++v) {
        const std::string field = fmt::format("variants[{}].", v);
        if (const auto key =
                first_difference(va[v], vb[v], {"label", "backend", "policy", "plugin", "preload", "exe", "env"});
            !key.empty())
          refuse(first, s, field + key, va[v].value(key, nlohmann::json()), vb[v].value(key, nlohmann::json()),
                 "they measure different variants");
        // Where both shards ran the variant: the same entry points and the same build.
        if (va[v].contains("malloc_object") && vb[v].contains("malloc_object")) {
          if (va[v].value("entry_set", "") != vb[v].value("entry_set", ""))
            refuse(first, s, field + "entry_set", va[v]["entry_set"], vb[v]["entry_set"],
                   "their workers called the allocator through different entry-point sets");
          if (va[v].value("timed_loop", "") != vb[v].value("timed_loop", ""))
            refuse(first, s, field + "timed_loop", va[v].value("timed_loop", ""), vb[v].value("timed_loop", ""),
                   "their workers ran different timed loops (harness/cell_runner.cc compiled otherwise), and one "
                   "cell's figures must come from one loop");
          if (const auto key =
                  first_difference(va[v], vb[v], {"allocator_version", "malloc_object", "worker_git_revision"});
              !key.empty())
            refuse(first, s, field + key, va[v].value(key, nlohmann::json()), vb[v].value(key, nlohmann::json()),
                   "their workers were different builds");
        }
      }
      if (!across_machines && fingerprint_of(first.canonical) != fingerprint_of(s.canonical))
        refuse(first, s, "conditions.machine_fingerprint", fingerprint_of(first.canonical), fingerprint_of(s.canonical),
               "they were measured on different machines; merge them with --across-machines to accept that (each "
               "cell then records its machine, and the results say so)");
    }
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("abench merge: a shard's results lack a field: {}", e.what()));
  }
  std::map<int, std::string> given;
  for (const ShardResults& s : shards) {
    if (s.index > s.count)
      throw UsageError(
          fmt::format("abench merge: {}: field 'shard.index' is {}, past shard.count {}", s.path, s.index, s.count));
    if (const auto [at, fresh] = given.emplace(s.index, s.path); !fresh)
      throw UsageError(
          fmt::format("abench merge: shard {}/{} is given twice ({} and {}): each shard once; nothing "
                      "was merged",
                      s.index, s.count, at->second, s.path));
  }
  std::vector<int> missing, present;
  for (int k = 1; k <= first.count; ++k) (given.contains(k) ? present : missing).push_back(k);
  if (!missing.empty())
    throw UsageError(fmt::format("abench merge: shard{} {} of {} {} missing (given: {}); nothing was merged",
                                 missing.size() == 1 ? "" : "s", fmt::join(missing, ", "), first.count,
                                 missing.size() == 1 ? "is" : "are", fmt::join(present, ", ")));
}

std::vector<std::string> unsharded_command_line(const std::vector<std::string>& line) {
  return without_options(line, {"--shard", "--out"});
}

namespace {

// The plan's variants as results.json names them; each keeps its stored label.
// Lays a shard's cells into the whole plan's places (cell i at plan_ids[i]) and its workers
// beside the others'. Refuses a cell that is not the plan's at that place, or is there twice.
void lay_in_shard(RunResults& merged, const ShardResults& shard, std::vector<bool>& filled) {
  const std::string machine = fingerprint_of(shard.canonical);
  const std::vector<int>& plan_ids = shard.results.plan.shard->plan_ids;
  const std::size_t plan_cells = merged.cells.size();
  const std::size_t per_variant = plan_cells / std::max<std::size_t>(merged.plan.variants.size(), 1);
  const std::vector<CellRecord>& cells = shard.results.cells;
  std::vector<std::vector<CellSpec>> planned;  // each variant's cells, in the plan's order
  for (const Variant& v : merged.plan.variants)
    planned.push_back(variant_cells(merged.matrix, v.policy, static_cast<int>(planned.size() * per_variant)));
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const CellRecord& stored = cells[i];
    const int id = plan_ids[i];
    const std::string label = shard.results.plan.variants[stored.cell.variant].label();
    const auto& variants = merged.plan.variants;
    const auto v = std::find_if(variants.begin(), variants.end(), [&](const Variant& x) { return x.label() == label; });
    const std::size_t variant = static_cast<std::size_t>(v - variants.begin());
    if (id < 0 || static_cast<std::size_t>(id) >= plan_cells || filled[static_cast<std::size_t>(id)] ||
        v == variants.end() || static_cast<std::size_t>(id) / per_variant != variant)
      throw UsageError(
          fmt::format("abench merge: {}: cell {} (plan cell {}) is not a cell of this plan or is "
                      "measured by two shards; nothing was merged",
                      shard.path, i, id));
    const CellSpec& expected = planned[variant].at(static_cast<std::size_t>(id) % per_variant);
    if (planned[variant].size() != per_variant || !same_work(stored.cell.spec, expected))
      throw UsageError(
          fmt::format("abench merge: {}: field 'shard.plan_ids[{}]' puts cell {} ({}) at plan cell {}, "
                      "where the plan measures {}; nothing was merged",
                      shard.path, i, i, cell_label(stored.cell.spec), id, cell_label(expected)));
    filled[static_cast<std::size_t>(id)] = true;
    CellRecord& record = merged.cells[static_cast<std::size_t>(id)];
    record.cell = {stored.cell.spec, variant};
    record.cell.spec.id = id;
    take_measurements(record, stored);
    resummarize(record, merged.protocol);
    record.shard = shard.index;
    record.machine_fingerprint = machine;
  }
  for (nlohmann::json& w : workers_in_plan(shard.results.earlier_workers, plan_ids, shard.index))
    merged.earlier_workers.push_back(std::move(w));
  const auto& hellos = shard.results.stored_hellos;
  for (std::size_t v = 0; v < hellos.size() && v < merged.stored_hellos.size(); ++v)
    if (!merged.stored_hellos[v] && hellos[v]) merged.stored_hellos[v] = hellos[v];
}

}  // namespace

RunResults merge_shards(const std::vector<ShardResults>& shards, const std::vector<std::string>& merge_command_line) {
  std::vector<const ShardResults*> in_order;
  for (const ShardResults& s : shards) in_order.push_back(&s);
  std::sort(in_order.begin(), in_order.end(), [](auto* a, auto* b) { return a->index < b->index; });
  const ShardResults& first = *in_order.front();
  RunResults merged;
  try {
    merged.matrix = in_order.front()->results.matrix;
    merged.protocol = merged.matrix.protocol;
    merged.stored_batch_rules = first.results.stored_batch_rules;  // the shards': alike (checked above)
    merged.command_line = unsharded_command_line(first.results.command_line);
    merged.run_id = random_run_id();  // each cell's two sides are of one shard's run: paired by round
    merged.complete = true;
    merged.plan.processes = merged.protocol.processes;
    merged.plan.variants = in_order.front()->results.plan.variants;
    merged.stored_hellos.resize(merged.plan.variants.size());

    const std::size_t plan_cells = first.results.plan.shard->plan_cells;
    std::size_t measured = 0;
    for (const ShardResults* s : in_order) measured += s->results.cells.size();
    if (measured != plan_cells)
      throw UsageError(
          fmt::format("abench merge: the shards hold {} cells but their plan has {} (field "
                      "'shard.plan_cells'); nothing was merged",
                      measured, plan_cells));
    merged.cells.resize(plan_cells);
    std::vector<bool> filled(plan_cells, false);
    MergeInfo info;
    std::set<std::string> machines, warnings;
    for (const ShardResults* s : in_order) {
      lay_in_shard(merged, *s, filled);
      const RunConditions& conditions = s->results.conditions;
      machines.insert(fingerprint_of(s->canonical));
      warnings.insert(conditions.warnings.begin(), conditions.warnings.end());
      const std::string& started = s->results.started_at;
      const std::string& finished = s->results.finished_at;
      if (merged.started_at.empty() || started < merged.started_at) merged.started_at = started;
      merged.finished_at = std::max(merged.finished_at, finished);
      info.shards.push_back({s->index, s->dir.string(), s->results.run_id, started, finished,
                             fingerprint_of(s->canonical), conditions.facts.value("hostname", nlohmann::json()),
                             s->results.cells.size(), s->results.plan.shard->expected_s,
                             conditions_to_json(conditions)});
    }
    for (const CellRecord& record : merged.cells) merged.plan.cells.push_back(record.cell);
    // A compare's (or side-by-side gate's) variants pair up: 2p the baseline, 2p+1 its candidate.
    bool two_sided = false;
    for (const ShardResults* s : in_order) two_sided = two_sided || !s->results.plan.partner.empty();
    if (two_sided) {
      const std::size_t per_variant = plan_cells / std::max<std::size_t>(merged.plan.variants.size(), 1);
      merged.plan.partner.resize(plan_cells);
      for (std::size_t id = 0; id < plan_cells; ++id)
        merged.plan.partner[id] = static_cast<int>(((id / per_variant) ^ 1) * per_variant + id % per_variant);
    }
    merged.conditions = first.results.conditions;
    if (machines.size() > 1)
      warnings.insert(
          fmt::format("merged from {} shards measured on {} machines (fingerprints {}): each cell's "
                      "field 'machine_fingerprint' says where it was measured; a cell's variants were "
                      "measured side by side on one machine, but figures of cells from two machines "
                      "are not comparable",
                      in_order.size(), machines.size(), fmt::join(machines, ", ")));
    merged.conditions.warnings.assign(warnings.begin(), warnings.end());
    info.command_line = merge_command_line;
    info.machines = machines.size();
    info.merged_at = utc_timestamp("%Y-%m-%dT%H:%M:%SZ");
    merged.merge = std::move(info);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("abench merge: a shard's results lack a field: {}", e.what()));
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("abench merge: a shard's results hold a bad value: {}", e.what()));
  }
  return merged;
}

}  // namespace abench
