#include "src/report/report_model.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "src/util/errors.h"
#include "src/results/results_reader.h"
#include "src/util/text.h"
#include "src/report/report_hot_path.h"
#include "src/verdict/compare_file.h"
#include "src/verdict/context.h"
#include "src/verdict/gate_file.h"
#include "src/results/results.h"
#include "src/util/json_file.h"

namespace abench {
namespace {

using nlohmann::json;

std::string text_at(const json& j, const std::string& key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

std::string fact_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "not readable";
  return value.dump();
}

RunResults read_results(const std::filesystem::path& file, ReportModel& model) {
  // The one reader validates every field and cross-reference, with errors that name the field.
  // Read once, below the directory and through no link (src/util/json_file.h), as everything
  // report reads; the facts below come from the file as recorded.
  const json j = read_json_file_below(model.dir, file.filename(), "the results file");
  const RunResults results = results_from_json(j, file.string());
  const MetricNames& names = metric_names(results.protocol.measure);
  model.unit = names.column;
  for (const Variant& v : results.plan.variants) model.variants.push_back(v.label());
  for (const CellRecord& record : results.cells) {
    const CellSpec& spec = record.cell.spec;
    const CellSummary& s = record.summary;
    ReportCell cell;
    cell.variant = results.plan.variants[record.cell.variant].label();
    cell.side = side_of(results, record);
    cell.backend = results.plan.variants[record.cell.variant].backend;
    cell.policy = name_of(spec.policy);
    cell.workload = name_of(spec.workload);
    cell.size = spec.size;
    cell.requested_align = spec.alignment.requested;
    cell.preferred_align = spec.alignment.preferred;
    cell.live = spec.live;
    cell.status = name_of(s.status);
    if (!record.failures.empty())
      cell.error = record.failures.front();
    else if (!record.refusal.empty())
      cell.error = record.refusal;
    cell.value = s.ns_per_op;
    cell.process_min = s.process_min_ns;
    cell.process_max = s.process_max_ns;
    for (const ProcessMeasurement& p : record.processes) {
      cell.process_medians.push_back(p.median_ns_per_op);
      cell.samples.push_back(p.sample_ns_per_op);
    }
    if (record.counts) {
      cell.final_request_bytes = static_cast<double>(record.counts->final_request_bytes_max);
      cell.block_usable_bytes = static_cast<double>(record.counts->block_usable_bytes_max);
    }
    model.cells.push_back(std::move(cell));
  }
  const json& protocol = j.at("protocol");
  const json& conditions = results.conditions.facts;
  std::string command;
  if (j.contains("command_line") && j["command_line"].is_array())
    for (const json& word : j["command_line"]) command += (command.empty() ? "" : " ") + fact_text(word);
  model.facts.emplace_back("command", command);
  model.facts.emplace_back("matrix", j.at("matrix").value("name", ""));
  model.facts.emplace_back("measure", protocol.value("measure", "time"));
  model.facts.emplace_back(
      "protocol",
      fmt::format("{} processes a variant, {} samples of {} ms batches, {}{}{}",
                  fact_text(protocol.value("processes", json())), fact_text(protocol.value("samples", json())),
                  fact_text(protocol.value("min_batch_ms", json())), protocol.value("process_mode", ""),
                  protocol.value("interleave_batches", false) ? ", paired batch by batch" : "",
                  protocol.value("touch", false) ? ", pages touched" : ""));
  for (const char* key : {"cpu_model", "kernel", "libc", "compiler", "cxx_flags", "hypervisor", "abench_git_revision"})
    if (conditions.contains(key)) model.facts.emplace_back(key, fact_text(conditions[key]));
  for (const json& v : j.at("variants"))
    model.facts.emplace_back("variant " + text_at(v, "label"),
                             fmt::format("{} from {}; entry points: {}", text_at(v, "allocator_version"),
                                         text_at(v, "malloc_object"), text_at(v, "entry_calls")));
  for (const std::string& w : results.conditions.warnings) model.warnings.push_back(fact_text(w));
  if (!j.value("complete", true)) model.warnings.push_back("the run did not reach its end (interrupted)");
  return results;
}

// --context: each in-matrix cell judged against its fresh twin, by the rule the command used.
void read_context(const RunResults& results, const std::vector<CellContext>& context, const VerdictSettings& settings,
                  ReportModel& model) {
  for (const CellContext& x : context) {
    const CellRecord& record = results.cells[static_cast<std::size_t>(x.cell)];
    const CellSpec& spec = record.cell.spec;
    model.context.push_back({results.plan.variants[record.cell.variant].label(), std::string(name_of(spec.workload)),
                             cell_axes_label(spec.size, spec.alignment.requested, spec.alignment.preferred, spec.live),
                             record.summary.ns_per_op, x.fresh, x.change, x.low, x.high, x.flag});
  }
  model.context_rule = context_rule_text(settings);
}

// The change and its interval, as compare rows and gate cells both hold them.
void put_judgement(ReportChange& change, const std::optional<Judgement>& judgement) {
  if (!judgement) return;
  change.change = judgement->change;
  change.low = judgement->low;
  change.high = judgement->high;
}

Comparison read_compare(const std::filesystem::path& file, ReportModel& model) {
  // The one reader of compare.json: each verdict checked against its interval.
  const Comparison c =
      comparison_from_json(read_json_file_below(model.dir, file.filename(), "the compare file"), file.string());
  for (const CompareRow& row : c.rows) {
    ReportChange change;
    change.group = fmt::format("{} -> {}", c.baseline_labels[row.pair], c.candidate_labels[row.pair]);
    change.workload = name_of(row.spec.workload);
    change.cell =
        cell_axes_label(row.spec.size, row.spec.alignment.requested, row.spec.alignment.preferred, row.spec.live);
    put_judgement(change, row.judgement);
    change.problem = row.problem;
    change.verdict = std::string(name_of(row.verdict));
    if (const auto& e = row.explanation; e && e->before && e->after) {
      change.instructions_change = relative_change(e->before->at("instructions"), e->after->at("instructions"));
      change.reading = e->reading;
    }
    change.context = row.context;
    change.layout = row.layout;
    change.layout_range = row.layout_range;
    model.changes.push_back(std::move(change));
  }
  for (const std::string& w : c.warnings) model.warnings.push_back(w);
  return c;
}

// compare.json's context marks are a claim about results.json's cells: they must be what
// those cells make them, never shown on the file's word alone.
void check_context_marks(const Comparison& said, const std::vector<CellContext>& context, const std::string& file) {
  Comparison derived = said;
  mark_context(derived, context);
  for (std::size_t i = 0; i < said.rows.size(); ++i)
    if (said.rows[i].context != derived.rows[i].context)
      throw UsageError(fmt::format("{}: field 'rows[{}].context' is '{}', but the cells of results.json make it '{}'",
                                   file, i, printable(said.rows[i].context.substr(0, 40)), derived.rows[i].context));
}

// compare.json's layout marks likewise: what the cells' layouts in results.json make them.
void check_layout_marks(const Comparison& said, const RunResults& results, const std::string& file) {
  for (std::size_t i = 0; i < said.rows.size(); ++i) {
    const CompareRow& row = said.rows[i];
    const auto cell = [&](int id) -> const CellSummary& {
      if (id < 0 || static_cast<std::size_t>(id) >= results.cells.size())
        throw UsageError(fmt::format("{}: rows[{}] names cell {}, which results.json does not hold", file, i, id));
      return results.cells[static_cast<std::size_t>(id)].summary;
    };
    CompareRow derived;
    mark_layout(derived, cell(row.before_cell), cell(row.after_cell), said.settings.detect);
    if (row.layout != derived.layout)
      throw UsageError(fmt::format("{}: field 'rows[{}].layout' is '{}', but the cells of results.json make it '{}'",
                                   file, i, printable(row.layout.substr(0, 40)), derived.layout));
  }
}

// A gate's cell key is backend/policy/workload/size/R:P/live.
void read_gate(const std::filesystem::path& file, ReportModel& model) {
  const GateVerdict verdict =
      gate_verdict_from_json(read_json_file_below(model.dir, file.filename(), "the gate file"), file.string());
  for (const GateCell& c : verdict.cells) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
      const std::size_t slash = c.key.find('/', start);
      parts.push_back(c.key.substr(start, slash - start));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    const auto number = [&](const std::string& text) -> std::uint64_t {
      if (text.empty() || text.size() > 19 || text.find_first_not_of("0123456789") != std::string::npos)
        throw UsageError(fmt::format("{}: a cell's field 'cell' is '{}' (want backend/policy/workload/size/R:P/live)",
                                     file.string(), printable(c.key.substr(0, 80))));
      return std::stoull(text);
    };
    if (parts.size() != 6 || parts[4].find(':') == std::string::npos) number("");
    ReportChange change;
    change.group = parts[0] + "/" + parts[1];
    change.workload = parts[2];
    const std::size_t colon = parts[4].find(':');
    change.cell = cell_axes_label(number(parts[3]), number(parts[4].substr(0, colon)),
                                  number(parts[4].substr(colon + 1)), number(parts[5]));
    put_judgement(change, c.judgement);
    change.problem = c.problem;
    change.verdict = std::string(name_of(c.outcome));
    change.threshold = c.applied;
    model.changes.push_back(std::move(change));
  }
  for (const std::string& w : verdict.warnings) model.warnings.push_back(w);
}

}  // namespace

std::string byte_size_label(std::uint64_t bytes) {
  auto scaled = [](std::uint64_t value, std::uint64_t unit, const char* name) {
    return value % unit == 0 ? fmt::format("{} {}", value / unit, name)
                             : fmt::format("{:.1f} {}", static_cast<double>(value) / static_cast<double>(unit), name);
  };
  if (bytes >= (1u << 20)) return scaled(bytes, 1u << 20, "MiB");
  if (bytes >= 1024) return scaled(bytes, 1024, "KiB");
  return fmt::format("{} B", bytes);
}

std::string cell_axes_label(std::uint64_t size, std::uint64_t requested_align, std::uint64_t preferred_align,
                            std::uint64_t live) {
  const std::string align = requested_align == preferred_align ? std::to_string(requested_align)
                                                               : fmt::format("{}:{}", requested_align, preferred_align);
  return fmt::format("{}, align {}, live {}", byte_size_label(size), align, live);
}

ReportModel load_report_model(const std::filesystem::path& dir) {
  ReportModel model;
  model.dir = dir;
  const auto results = dir / "results.json", compare = dir / "compare.json", gate = dir / "gate.json";
  const bool has_results = std::filesystem::exists(results);
  if (!has_results && !std::filesystem::exists(gate))
    throw UsageError(
        fmt::format("{}: no results.json or gate.json here (abench report reads the directory that run, "
                    "compare or gate wrote)",
                    dir.string()));
  std::optional<RunResults> loaded;
  if (has_results) loaded = read_results(results, model);
  model.kind = "run";
  VerdictSettings settings = loaded ? context_settings(loaded->protocol) : VerdictSettings{};
  std::optional<Comparison> comparison;
  if (std::filesystem::exists(compare)) {
    comparison = read_compare(compare, model);
    settings = comparison->settings;
    model.kind = "compare";
  } else if (std::filesystem::exists(gate)) {
    read_gate(gate, model);
    model.kind = "gate";
  }
  if (comparison && comparison->layouts) {
    if (!loaded || loaded->protocol.layouts <= 0)
      throw UsageError(fmt::format("{}: says its cells were measured at --layouts, but {} was not", compare.string(),
                                   results.string()));
    check_layout_marks(*comparison, *loaded, compare.string());
  } else if (loaded && loaded->protocol.layouts > 0 && !comparison) {
    std::vector<std::string> moving;
    for (const CellRecord& cell : loaded->cells)
      if (const auto& spread = cell.summary.layout; spread && spread->sensitive(layout_margin(loaded->protocol)))
        moving.push_back(fmt::format("{} ({:.1f}% apart)", cell_key(*loaded, cell), 100 * spread->range));
    if (!moving.empty())
      model.warnings.push_back(fmt::format(
          "{} cell{} move{} with layout beyond ±{:g}% (--layouts): a change of that size there could be the layout "
          "alone: {}",
          moving.size(), moving.size() == 1 ? "" : "s", moving.size() == 1 ? "s" : "",
          100 * layout_margin(loaded->protocol), fmt::join(moving, ", ")));
  }
  const bool context = loaded && loaded->protocol.context;
  if (comparison && comparison->context && !context)
    throw UsageError(fmt::format("{}: field 'context' is true, but {} was not measured with --context",
                                 compare.string(), results.string()));
  if (context) {
    std::vector<CellContext> cells;
    try {
      cells = context_of(*loaded, settings);
    } catch (const UsageError& e) {
      throw UsageError(fmt::format("{}: its --context cells: {}", results.string(), e.what()));
    }
    if (comparison && comparison->context) check_context_marks(*comparison, cells, compare.string());
    read_context(*loaded, cells, settings, model);
  }
  std::string matrix;
  for (const auto& [key, value] : model.facts)
    if (key == "matrix") matrix = value;
  model.hot_paths = read_report_hot_paths(dir, model.unread);
  model.warnings.insert(model.warnings.end(), model.unread.begin(), model.unread.end());
  model.title = matrix.empty() ? "abench " + model.kind : fmt::format("abench {} of {}", model.kind, matrix);
  if (model.unit.empty()) model.unit = "per op";
  return model;
}

}  // namespace abench
