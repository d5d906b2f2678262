#include "src/results/results_reader.h"

#include "src/plan/protocol_rules.h"

#include <algorithm>
#include <csignal>
#include <cmath>
#include <cstring>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "harness/json_fields.h"
#include "src/util/json_field.h"
#include "src/plan/protocol_rules.h"
#include "src/plan/shard.h"
#include "src/results/stored_matrix.h"
#include "src/stats/statistics.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"

namespace abench {
namespace {

int signal_named(const JsonField& f) {
  if (f.json().is_null()) return 0;
  const std::string name = f.text();
  for (int s = 1; s < NSIG; ++s)
    if (const char* abbrev = sigabbrev_np(s); abbrev != nullptr && name == abbrev) return s;
  f.fail(fmt::format("is '{}', not the name of a signal (INT, TERM, ...)", printable(name.substr(0, 40))));
}

// The cells each worker ran, by id: merge renumbers them into the merged plan, so each must be a
// cell of this file.
void check_worker_cells(const JsonField& workers, std::size_t cells) {
  for (std::size_t w = 0; w < workers.size_of_list(); ++w) {
    const JsonField worker = workers.at(w);
    for (const char* key : {"cells", "order"}) {
      if (!worker.has(key)) continue;
      const JsonField ids = worker.at(key);
      for (std::size_t i = 0; i < ids.size_of_list(); ++i) {
        if (cells == 0) ids.at(i).fail("names a cell, and the file holds none");
        ids.at(i).whole<std::size_t>(0, cells - 1);
      }
    }
  }
}

Variant variant_from(const JsonField& v, std::optional<WorkerHello>& hello) {
  Variant variant;
  variant.name = v.at("label").text();
  if (variant.name.empty()) v.at("label").fail("must not be empty");
  variant.backend = parse_backend(v.at("backend").text(), known_backends(), v.at("backend").where());
  variant.policy = parse_policy(v.at("policy").text(), v.at("policy").where());
  // Fields results.json gained after it began (2026-11-30 and 12-01): absent in a file
  // written before them, validated where present.
  if (v.has("plugin")) variant.plugin = v.at("plugin").text();
  if (v.has("preload")) variant.preload = v.at("preload").text();
  if (v.has("exe")) variant.exe = v.at("exe").text();
  if (v.has("env")) {
    const JsonField env = v.at("env");
    if (!env.json().is_object()) env.fail("must be an object of NAME: value");
    for (const auto& [key, value] : env.json().items()) variant.env.emplace_back(key, env.member(key, value).text());
  }
  if (v.has("malloc_object")) {  // a worker of this variant started and said who it was
    WorkerHello h;
    h.backend = variant.backend;
    for (const StoredHelloField& field : kStoredHelloFields)
      if (v.has(field.key)) h.*field.member = v.at(field.key).text();
    // Compared across files (resume, merge, gate, history): the form a worker gives it, or none.
    if (!is_timed_loop_or_empty(h.timed_loop))
      v.at("timed_loop").fail("must be 16 lowercase hex digits (harness/timed_loop.h), or empty");
    if (v.has("entry_functions")) {
      const JsonField functions = v.at("entry_functions");
      constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
      for (std::size_t i = 0; i < functions.size_of_list(); ++i) {
        const JsonField f = functions.at(i);
        h.entry_functions.push_back(
            {f.at("name").text(), f.at("object").text(), f.at("address").whole<std::uint64_t>(0, kMax),
             f.at("file_address").whole<std::uint64_t>(0, kMax), f.at("size").whole<std::uint64_t>(0, kMax)});
      }
    }
    hello = std::move(h);
  }
  return variant;
}

ProcessMeasurement process_from(const JsonField& p, const MetricNames& names, int max_round) {
  ProcessMeasurement m;
  m.round = p.at("round").whole<int>(1, max_round) - 1;
  m.pid = p.at("pid").whole<long>(0, std::numeric_limits<int>::max());
  m.cpu = p.at("cpu").whole<int>(-1, 1 << 20);
  m.seed = p.at("seed").whole<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max());
  m.iterations = p.at("iterations").whole<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max());
  m.warmup_batches = p.at("warmup_batches").whole<int>(0, std::numeric_limits<int>::max());
  if (p.has("warm")) m.warm = p.at("warm").flag();
  m.sample_ns_per_op = p.at(names.samples).figures();
  if (m.sample_ns_per_op.empty()) p.at(names.samples).fail("is empty: a process measured no sample");
  // Recomputed, never taken from the file: the median a summary and a verdict use is the
  // samples' own (the stored one is only checked to be a figure).
  p.at(names.process_median).figure();
  m.median_ns_per_op = median(m.sample_ns_per_op);
  if (p.has("sample_iterations")) {
    const JsonField counts = p.at("sample_iterations");
    if (counts.size_of_list() != m.sample_ns_per_op.size())
      counts.fail(fmt::format("has {} counts for {} samples", counts.size_of_list(), m.sample_ns_per_op.size()));
    for (std::size_t i = 0; i < counts.size_of_list(); ++i)
      m.sample_iterations.push_back(counts.at(i).whole<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max()));
  }
  if (p.has("data_accesses_per_op")) m.data_accesses_per_op = p.at("data_accesses_per_op").figure();
  if (p.has("counter_samples_per_op")) {
    const JsonField counters = p.at("counter_samples_per_op");
    if (!counters.json().is_object()) counters.fail("must be an object of event: samples");
    for (const auto& [event, samples] : counters.json().items())
      m.counter_samples_per_op[event] = counters.member(event, samples).figures();
  }
  if (p.has("layout")) {
    const JsonField layout = p.at("layout");
    m.layout = ProcessLayout{layout.at("seed").whole<std::uint64_t>(0, std::numeric_limits<std::uint64_t>::max()),
                             layout.at("stack_shift").whole<int>(0, 4095)};
    if (m.layout->stack_shift % 16 != 0) layout.at("stack_shift").fail("must be a multiple of 16");
    if (layout.has("index")) m.layout->index = layout.at("index").whole<int>(0, kMaxLayouts - 1);
  }
  return m;
}

// The layouts group processes for the layout test and pair them for a verdict: a number
// other than the one --layouts gives the process's round would regroup them.
void check_layout_index(const ProcessMeasurement& p, const RunProtocol& protocol, const JsonField& field) {
  const int expected = protocol.layouts > 0 ? p.round % protocol.layouts : -1;
  if (p.layout && p.layout->index != expected && (p.layout->index >= 0 || protocol.layouts > 0))
    field.at("layout").fail(expected < 0 ? "has an index, but protocol.layouts is off"
                                         : fmt::format("has index {}, but round {} of --layouts {} is layout {}",
                                                       p.layout->index, p.round + 1, protocol.layouts, expected));
}

// The identity of a cell's work, whatever its side: what pairs a compare's two sides.
using WorkKey = std::tuple<std::size_t, Workload, std::size_t, std::size_t, std::size_t, std::size_t>;
WorkKey work_of(const PlannedCell& c) {
  return {c.variant, c.spec.workload, c.spec.size, c.spec.alignment.requested, c.spec.alignment.preferred, c.spec.live};
}

CellRecord cell_from(const JsonField& c, std::size_t index, const RunResults& r,
                     const std::map<std::string, std::size_t>& labels, int max_round) {
  CellRecord cell;
  CellSpec& spec = cell.cell.spec;
  spec.id = c.at("id").whole<int>(0, std::numeric_limits<int>::max());
  if (static_cast<std::size_t>(spec.id) != index)
    c.at("id").fail(fmt::format("is {}, but the cell is cells[{}]", spec.id, index));
  const std::string label = c.at("variant").text();
  const auto variant = labels.find(label);
  if (variant == labels.end())
    c.at("variant").fail(
        fmt::format("is '{}', not the label of one of the file's variants", printable(label.substr(0, 80))));
  cell.cell.variant = variant->second;
  const Variant& v = r.plan.variants[variant->second];
  if (c.at("backend").text() != v.backend)
    c.at("backend").fail(fmt::format("is '{}' but its variant's backend is '{}'",
                                     printable(c.at("backend").text().substr(0, 40)), v.backend));
  spec.policy = parse_policy(c.at("policy").text(), c.at("policy").where());
  spec.workload = parse_workload(c.at("workload").text(), c.at("workload").where());
  spec.size = parse_size(c.at("size").json(), c.at("size").where());
  spec.alignment = parse_alignment(
      nlohmann::json{{"requested", c.at("requested_align").json()}, {"preferred", c.at("preferred_align").json()}},
      c.at("requested_align").where() + "/preferred_align");
  spec.live = parse_live(c.at("live").json(), c.at("live").where());

  const MetricNames& names = metric_names(r.protocol.measure);
  const JsonField processes = c.at("processes");
  for (std::size_t k = 0; k < processes.size_of_list(); ++k) {
    cell.processes.push_back(process_from(processes.at(k), names, max_round));
    // One process a round: a round twice would count one process's figure twice.
    for (std::size_t j = 0; j + 1 < cell.processes.size(); ++j)
      if (cell.processes[j].round == cell.processes.back().round)
        processes.at(k).at("round").fail(
            fmt::format("is {}, a round processes[{}] measured already", cell.processes.back().round + 1, j));
    check_layout_index(cell.processes.back(), r.protocol, processes.at(k));
  }
  cell.failures = c.at("errors").texts();
  if (c.has("refusal")) cell.refusal = c.at("refusal").text();
  if (c.has("counts")) {
    const JsonField counts = c.at("counts");
    if (!counts.json().is_object()) counts.fail("must be an object or null");
    nlohmann::json whole = counts.json();
    whole["id"] = spec.id;
    whole["status"] = "ok";
    try {
      cell.counts = whole.get<CellCounts>();
    } catch (const std::exception& e) {
      counts.fail(printable(e.what()));
    }
  }
  if (c.has("counts_unavailable")) cell.counts_unavailable = c.at("counts_unavailable").text();
  if (c.has("finished_rounds")) {
    const JsonField rounds = c.at("finished_rounds");
    for (std::size_t k = 0; k < rounds.size_of_list(); ++k) {
      const int round = rounds.at(k).whole<int>(1, max_round) - 1;
      if (std::count(cell.rounds_done.begin(), cell.rounds_done.end(), round) > 0)
        rounds.at(k).fail(fmt::format("is {}, listed twice", round + 1));
      cell.rounds_done.push_back(round);
    }
  } else {  // a file from before --resume: the rounds it measured are the rounds it finished
    for (const ProcessMeasurement& p : cell.processes) cell.rounds_done.push_back(p.round);
  }
  cell.counting_done = c.has("counting_finished") ? c.at("counting_finished").flag()
                                                  : cell.counts.has_value() || !cell.counts_unavailable.empty();
  if (c.has("shard")) cell.shard = c.at("shard").whole<int>(1, 100000);
  // The status is derived from what the cell holds, never taken from the file; a file whose
  // status says otherwise was edited.
  const std::string status = c.at("status").text();
  resummarize(cell, r.protocol);
  const std::string_view derived = name_of(cell.summary.status);
  if (status != derived)
    c.at("status").fail(fmt::format("is '{}' but the cell's processes, errors and refusal make it '{}'",
                                    printable(status.substr(0, 20)), derived));
  if (c.has("machine_fingerprint")) cell.machine_fingerprint = c.at("machine_fingerprint").text();
  return cell;
}

// A compare's cells: variant 2p is pair p's baseline, 2p+1 its candidate, and each cell has
// the cell of the same work on the other side as its partner.
void pair_sides(const JsonField& cells, RunResults& r) {
  bool sided = false;
  for (std::size_t i = 0; i < r.cells.size(); ++i) {
    const std::string side = cells.at(i).has("side") ? cells.at(i).at("side").text() : "";
    const std::string expected = r.plan.variants.size() % 2 == 0 && !side.empty()
                                     ? (r.cells[i].cell.variant % 2 == 0 ? "baseline" : "candidate")
                                     : "";
    if (i == 0) sided = !side.empty();
    if (side != (sided ? expected : ""))
      cells.at(i).at("side").fail(
          fmt::format("is '{}' (allowed here: '{}'): a compare's variants alternate "
                      "baseline, candidate; a run's cells have no side",
                      printable(side.substr(0, 20)), sided ? expected : ""));
  }
  if (!sided) return;
  std::map<WorkKey, int> by_work;
  for (const CellRecord& c : r.cells)
    if (!by_work.emplace(work_of(c.cell), c.cell.spec.id).second)
      cells.at(static_cast<std::size_t>(c.cell.spec.id)).fail("measures what another cell of its variant measures");
  r.plan.partner.resize(r.cells.size());
  for (const CellRecord& c : r.cells) {
    PlannedCell other = c.cell;
    other.variant ^= 1;
    const auto partner = by_work.find(work_of(other));
    if (partner == by_work.end())
      cells.at(static_cast<std::size_t>(c.cell.spec.id)).fail("has no partner on the other side of its compare");
    r.plan.partner[static_cast<std::size_t>(c.cell.spec.id)] = partner->second;
  }
}

void read_shard(const JsonField& s, RunResults& r) {
  PlanShard shard;
  shard.count = s.at("count").whole<int>(1, kMaxShards);
  shard.index = s.at("index").whole<int>(1, shard.count);
  shard.plan_cells = s.at("plan_cells").whole<std::size_t>(r.cells.size(), std::size_t{1} << 40);
  const JsonField ids = s.at("plan_ids");
  if (ids.size_of_list() != r.cells.size())
    ids.fail(fmt::format("has {} ids for the file's {} cells", ids.size_of_list(), r.cells.size()));
  for (std::size_t i = 0; i < ids.size_of_list(); ++i)
    shard.plan_ids.push_back(ids.at(i).whole<int>(0, static_cast<int>(shard.plan_cells) - 1));
  shard.expected_s = s.at("expected_s").figure();
  shard.plan_expected_s = s.at("plan_expected_s").figure();
  r.plan.shard = std::move(shard);
}

}  // namespace

RunResults results_from_json(const nlohmann::json& j, const std::string& path) {
  if (!j.is_object() || j.value("schema", "") != "abench.results")
    throw UsageError(path +
                     ": not an abench results file (field 'schema' is not \"abench.results\"; "
                     "give the results.json written by abench run or compare)");
  if (j.value("schema_version", 0) != kResultsSchemaVersion)
    throw UsageError(fmt::format("{}: field 'schema_version' is {}, this abench reads version {}", path,
                                 printable(j.value("schema_version", nlohmann::json(0)).dump().substr(0, 20)),
                                 kResultsSchemaVersion));
  const JsonField root(path, j, "");
  RunResults r;
  try {
    r.matrix = matrix_as_stored(j, known_backends());
  } catch (const UsageError& e) {
    throw UsageError(fmt::format("{}: {}", path, e.what()));
  }
  r.protocol = r.matrix.protocol;
  const JsonField protocol = root.at("protocol");
  // Rounds beyond the plan's come only from adaptive rounds (and the gate's confirmation,
  // which pools two runs in memory, never in a file).
  const int max_round = std::max(r.protocol.processes, r.protocol.max_rounds);
  r.plan.processes = r.protocol.processes;

  r.complete = root.at("complete").flag();
  if (root.has("interrupted_by")) r.interrupted_by = signal_named(root.at("interrupted_by"));
  r.started_at = root.at("started_at").text();
  r.run_id = root.has("run_id") ? root.at("run_id").text() : "";
  if (root.has("finished_at")) r.finished_at = root.at("finished_at").text();
  r.command_line = root.at("command_line").texts();
  r.conditions = conditions_from_json(root.at("conditions"));

  const JsonField variants = root.at("variants");
  std::map<std::string, std::size_t> labels;
  for (std::size_t v = 0; v < variants.size_of_list(); ++v) {
    std::optional<WorkerHello> hello;
    r.plan.variants.push_back(variant_from(variants.at(v), hello));
    r.stored_hellos.push_back(std::move(hello));
    if (!labels.emplace(r.plan.variants.back().name, v).second)
      variants.at(v).at("label").fail("names two variants: labels tell variants apart");
  }

  const JsonField cells = root.at("cells");
  for (std::size_t i = 0; i < cells.size_of_list(); ++i) {
    r.cells.push_back(cell_from(cells.at(i), i, r, labels, max_round));
    r.plan.cells.push_back(r.cells.back().cell);
  }
  pair_sides(cells, r);
  // Text about how that run's build measured, written back as it was read.
  if (protocol.has("batch")) {
    r.stored_batch_rules = protocol.at("batch").json();
    if (!r.stored_batch_rules.is_object()) protocol.at("batch").fail("must be an object (the batch rules' text)");
  }
  r.earlier_workers = root.at("workers").json();
  if (!r.earlier_workers.is_array()) root.at("workers").fail("must be a list");
  check_worker_cells(root.at("workers"), r.cells.size());
  if (root.has("shard")) read_shard(root.at("shard"), r);
  if (root.has("merge")) {
    try {
      r.merge = root.at("merge").json().get<MergeInfo>();
    } catch (const nlohmann::json::exception& e) {
      root.at("merge").fail(printable(e.what()));
    }
  }
  return r;
}

RunResults load_results(const std::string& path) {
  return results_from_json(read_json_file(path, "the results file"), path);
}

RunResults load_results_below(const std::filesystem::path& root, const std::filesystem::path& relative) {
  return results_from_json(read_json_file_below(root, relative, "the results file"), (root / relative).string());
}

}  // namespace abench
