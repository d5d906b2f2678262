#include "src/plan/protocol_fields.h"

#include <sched.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/protocol.h"
#include "src/plan/protocol_rules.h"
#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

using Kind = ProtocolField::Kind;
using Place = ProtocolField::Place;

ProtocolField row(std::string_view key, std::string option, std::string help, Kind kind, unsigned places) {
  ProtocolField f;
  f.key = key, f.option = std::move(option), f.help = std::move(help), f.kind = kind, f.places = places;
  return f;
}
ProtocolField whole(std::string_view key, std::string option, int RunProtocol::*member, double low, double high,
                    std::string help, unsigned places = Place::kEverywhere) {
  ProtocolField f = row(key, std::move(option), std::move(help), Kind::whole, places);
  f.whole = member, f.low = low, f.high = high;
  return f;
}
ProtocolField decimal(std::string_view key, std::string option, double RunProtocol::*member, double low, double high,
                      std::string_view unit, std::string help, unsigned places = Place::kEverywhere) {
  ProtocolField f = row(key, std::move(option), std::move(help), Kind::decimal, places);
  f.decimal = member, f.low = low, f.high = high, f.unit = unit;
  return f;
}
ProtocolField flag(std::string_view key, std::string option, bool RunProtocol::*member, bool option_sets, bool before,
                   std::string help, unsigned places = Place::kEverywhere) {
  ProtocolField f = row(key, std::move(option), std::move(help), Kind::flag, places);
  f.flag = member, f.option_sets = option_sets, f.before_recorded = before;
  return f;
}
ProtocolField choice(std::string_view key, std::string option, std::vector<std::string_view> names,
                     std::string_view (*get)(const RunProtocol&), void (*set)(RunProtocol&, std::string_view),
                     std::string help, unsigned places = Place::kEverywhere) {
  ProtocolField f = row(key, std::move(option), std::move(help), Kind::choice, places);
  f.choices = std::move(names), f.choice_of = get, f.set_choice = set, f.before_recorded = f.choices.front();
  return f;
}

std::vector<std::string_view> measure_choices() {
  std::vector<std::string_view> names;
  for (const MeasureRow& m : kMeasures) names.push_back(m.name);
  return names;
}
std::string measures_help() {
  std::string help;
  for (const MeasureRow& m : kMeasures) help += fmt::format("{}{} ({})", help.empty() ? "" : "; ", m.name, m.what);
  return help;
}

// The adaptive rounds' fields, written as protocol.until_interval while they are on.
std::vector<ProtocolField> until_interval_group() {
  constexpr unsigned kResultsAndOption = Place::kResults | Place::kOption;
  ProtocolField width =
      decimal("until_interval.width_percent", "--until-interval", &RunProtocol::until_interval, 0.01, 100, "%",
              "PCT: after --processes rounds, add rounds only to the cells whose interval (the "
              "change's in a compare, the figure's in a run) is still wider than PCT percent, up to "
              "--max-rounds; every cell a process of its own (docs/statistics.md)",
              kResultsAndOption);
  width.scale = 100, width.default_text = "off";
  ProtocolField rounds = whole("until_interval.max_rounds", "--max-rounds", &RunProtocol::max_rounds, 1, 1000,
                               "With --until-interval: the most rounds a cell gets", kResultsAndOption);
  rounds.default_text = fmt::format("{} (--budget: {})", kDefaultMaxRounds, kBudgetMaxRounds);
  ProtocolField confidence = decimal("until_interval.confidence", "", &RunProtocol::interval_confidence, 0.5, 0.999, "",
                                     "The confidence of the intervals measured against the width", Place::kResults);
  ProtocolField budget =
      decimal("until_interval.budget_seconds", "--budget", &RunProtocol::budget_s, 1, kMaxBudgetSeconds, "s",
              "DURATION (90s, 10m, 1h): measure within this time; after --processes rounds, the cells whose interval "
              "is still wider than the target (compare: --detect, which resolves every cell; otherwise "
              "--until-interval) get rounds, those cheapest to narrow first, while the time left allows "
              "(docs/statistics.md)",
              kResultsAndOption);
  budget.before_recorded = 0.0, budget.omitted_at_before_value = true, budget.default_text = "none";
  budget.duration = true;
  return {width, rounds, confidence, budget};
}

std::vector<ProtocolField> make_rows() {
  constexpr unsigned kMatrixAndOption = Place::kMatrix | Place::kOption;
  ProtocolField worker_timeout = decimal("worker_timeout_s", "--worker-timeout", &RunProtocol::worker_timeout_s, 0,
                                         604800, "s", "Seconds before a worker is killed (0: from the cell count)");
  worker_timeout.before_recorded = 0.0;
  ProtocolField cpu = whole("cpu", "--cpu", &RunProtocol::cpu, 0, CPU_SETSIZE - 1, "Pin workers to this CPU");
  cpu.none = "last allowed", cpu.default_text = "last allowed";
  ProtocolField seed = row("seed", "--seed", "Seed for the per-process cell order", Kind::seed, Place::kEverywhere);
  seed.seed = &RunProtocol::seed, seed.before_recorded = 0, seed.default_text = "from the clock";
  // Files from before the field existed were measured at the kernel's layouts (and say nothing).
  ProtocolField layout = choice(
      "layout", "--layout", {"kernel", "drawn", "fixed"}, layout_name,
      [](RunProtocol& p, std::string_view name) {
        p.layout = name == "drawn" ? LayoutMode::drawn : name == "fixed" ? LayoutMode::fixed : LayoutMode::kernel;
      },
      "Where the workers' stack, heap and code lie: drawn (address randomisation off, one layout a round from "
      "--seed, the same for both sides of a pair), fixed (one for all) or kernel (the kernel's, one a "
      "process); every worker's path and environment padded to one size (docs/measurement.md)");
  layout.omitted_at_before_value = true;
  ProtocolField layouts = whole("layouts", "--layouts", &RunProtocol::layouts, 2, kMaxLayouts,
                                "K: with --layout drawn, K layouts in turn round after round, each with its own copies "
                                "of the workers' files; a cell whose figure moves with layout beyond the --detect "
                                "margin is flagged layout-sensitive (docs/measurement.md)",
                                Place::kResults | Place::kOption);
  layouts.before_recorded = 0, layouts.omitted_at_before_value = true, layouts.default_text = "off";
  std::vector<ProtocolField> rows{
      choice(
          "measure", "--measure", measure_choices(),
          [](const RunProtocol& p) { return std::string_view(name_of(p.measure)); },
          [](RunProtocol& p, std::string_view name) { measure_named(name, p.measure); }, measures_help()),
      whole("samples", "--samples", &RunProtocol::samples, 1, 10000, "Timed samples per process"),
      whole("processes", "--processes", &RunProtocol::processes, 1, 1000, "Worker processes per variant"),
      decimal("min_batch_ms", "--min-batch-ms", &RunProtocol::min_batch_ms, 0.001, 60000, "ms",
              "Duration of one timed batch, on average (its count predicted from the warm-up; each within 4%)"),
      worker_timeout,
      choice(
          "order", "--order", {"shuffled", "matrix"},
          [](const RunProtocol& p) { return std::string_view(p.order == CellOrder::matrix ? "matrix" : "shuffled"); },
          [](RunProtocol& p, std::string_view name) {
            p.order = name == "matrix" ? CellOrder::matrix : CellOrder::shuffled;
          },
          "Cell order inside a worker"),
      flag("fresh_process_per_cell", "--fresh-process-per-cell", &RunProtocol::fresh_process_per_cell, true, false,
           "Run every cell alone in fresh processes (no allocator history)", kMatrixAndOption),
      // results.json's record of which processes measured the cells (--context: both kinds).
      choice(
          "process_mode", "", {"process-per-variant", "fresh-process-per-cell", "context"}, process_mode_name,
          [](RunProtocol& p, std::string_view name) {
            p.fresh_process_per_cell = name == "fresh-process-per-cell";
            p.context = name == "context";
          },
          "Which processes measured the cells", Place::kResults),
      flag("interleave_batches", "", &RunProtocol::interleave_batches, true, false,
           "A cell's two sides alive at once, taking turns batch by batch (compare --interleave batch)",
           Place::kResults),
      flag("touch", "--touch", &RunProtocol::touch, true, false,
           "Read every page of each built buffer before dropping it"),
      flag("pin", "--no-pin", &RunProtocol::pin, false, true, "Do not pin workers to a CPU"),
      cpu,
      flag("counts", "--no-counts", &RunProtocol::counts, false, true,
           "Skip the instrumented counting runs (requests, bytes, RSS)"),
      // Files from before the field existed counted first.
      flag("counts_beside", "--counts-first", &RunProtocol::counts_beside, false, false,
           "Run the counting runs before the timed rounds, not beside them on a CPU of abench's own, stopped "
           "while a timed worker samples (docs/counts.md)"),
      // Files from before start-ahead existed were measured without it.
      flag("start_ahead", "--no-start-ahead", &RunProtocol::start_ahead, false, false,
           "Start a paced pair's workers when the measured CPU is theirs, not beside it while the pair before "
           "them is measured (docs/protocol.md, \"Started ahead\")"),
      seed,
      layout,
      layouts,
  };
  for (ProtocolField& f : until_interval_group()) rows.push_back(std::move(f));
  return rows;
}

std::string wrong_value(const ProtocolField& f, const nlohmann::json& value) {
  return fmt::format("is {} (allowed: {})", printable(value.dump().substr(0, 40)), allowed_values(f));
}

// The JSON at `key` ("GROUP.KEY": inside GROUP) of a protocol object, or nullptr.
const nlohmann::json* value_at(const nlohmann::json& object, std::string_view key) {
  const auto dot = key.find('.');
  const auto found = object.find(std::string(key.substr(0, dot)));
  if (found == object.end()) return nullptr;
  if (dot == std::string_view::npos) return &*found;
  return found->is_object() ? value_at(*found, key.substr(dot + 1)) : nullptr;
}

}  // namespace

std::string_view layout_name(const RunProtocol& p) {
  return p.layout == LayoutMode::drawn ? "drawn" : p.layout == LayoutMode::fixed ? "fixed" : "kernel";
}

std::string_view process_mode_name(const RunProtocol& p) {
  if (p.context) return "context";
  return p.fresh_process_per_cell ? "fresh-process-per-cell" : "process-per-variant";
}

const std::vector<ProtocolField>& protocol_fields() {
  static const std::vector<ProtocolField> rows = make_rows();
  return rows;
}

const std::vector<ProtocolGroup>& protocol_groups() {
  static const std::vector<ProtocolGroup> groups{
      {"until_interval", [](const RunProtocol& p) { return p.until_interval > 0; },
       [](const RunProtocol& p) {
         nlohmann::json notes{{"rule", kAdaptiveRoundsRule}};
         if (p.budget_s > 0) notes["budget_rule"] = kBudgetRule;
         return notes;
       }},
  };
  return groups;
}

const ProtocolField* protocol_field(std::string_view key) {
  for (const ProtocolField& f : protocol_fields())
    if (f.key == key) return &f;
  return nullptr;
}

const ProtocolGroup* group_of(const ProtocolField& field) {
  const auto dot = field.key.find('.');
  if (dot == std::string_view::npos) return nullptr;
  for (const ProtocolGroup& g : protocol_groups())
    if (g.key == field.key.substr(0, dot)) return &g;
  throw std::logic_error(fmt::format("protocol field {} is in no group", field.key));
}

std::string_view key_in_group(const ProtocolField& field) {
  const auto dot = field.key.find('.');
  return dot == std::string_view::npos ? field.key : field.key.substr(dot + 1);
}

std::string allowed_values(const ProtocolField& f) {
  switch (f.kind) {
    case Kind::whole:
      return fmt::format("a whole number from {:g} to {:g}{}", f.low, f.high,
                         f.none.empty() ? "" : fmt::format(", or \"{}\"", f.none));
    case Kind::decimal:
      return fmt::format("a number from {:g} to {:g}{}{}", f.low, f.high, f.unit.empty() ? "" : " ", f.unit);
    case Kind::flag: return "true or false";
    case Kind::seed: return fmt::format("a whole number from 0 to {}", std::numeric_limits<std::uint64_t>::max());
    case Kind::choice: return fmt::format("{}", fmt::join(f.choices, ", "));
  }
  return "";
}

std::string set_protocol_field(const ProtocolField& f, const nlohmann::json& value, RunProtocol& p) {
  switch (f.kind) {
    case Kind::flag:
      if (!value.is_boolean()) return wrong_value(f, value);
      p.*f.flag = value.get<bool>();
      return "";
    case Kind::whole: {
      // null: files written before the text was (and hand-written ones) mean the same.
      if (!f.none.empty() && (value == f.none || value.is_null())) {
        p.*f.whole = -1;
        return "";
      }
      if (!value.is_number_integer() && !value.is_number_unsigned()) return wrong_value(f, value);
      const double v = value.is_number_unsigned() ? static_cast<double>(value.get<std::uint64_t>())
                                                  : static_cast<double>(value.get<std::int64_t>());
      if (v < f.low || v > f.high) return wrong_value(f, value);
      p.*f.whole = static_cast<int>(v);
      return "";
    }
    case Kind::decimal:
      // NaN passes every comparison, and 1e300 ms overflows a deadline built from it.
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < f.low ||
          value.get<double>() > f.high)
        return wrong_value(f, value);
      p.*f.decimal = value.get<double>() / f.scale;
      return "";
    case Kind::seed:
      if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0))
        return wrong_value(f, value);
      p.*f.seed = value.get<std::uint64_t>();
      return "";
    case Kind::choice:
      for (std::string_view name : f.choices)
        if (value.is_string() && value.get<std::string>() == name) {
          f.set_choice(p, name);
          return "";
        }
      return wrong_value(f, value);
  }
  return wrong_value(f, value);
}

nlohmann::json protocol_field_value(const ProtocolField& f, const RunProtocol& p) {
  switch (f.kind) {
    case Kind::flag: return p.*f.flag;
    case Kind::whole: return !f.none.empty() && p.*f.whole < 0 ? nlohmann::json(f.none) : nlohmann::json(p.*f.whole);
    case Kind::decimal: return p.*f.decimal * f.scale;
    case Kind::seed: return p.*f.seed;
    case Kind::choice: return f.choice_of(p);
  }
  return nullptr;
}

void set_as_before_recorded(const ProtocolField& f, RunProtocol& p) {
  const nlohmann::json& v = f.before_recorded;
  switch (f.kind) {
    case Kind::flag: p.*f.flag = v.get<bool>(); return;
    case Kind::whole: p.*f.whole = v.get<int>(); return;
    case Kind::decimal: p.*f.decimal = v.get<double>() / f.scale; return;
    case Kind::seed: p.*f.seed = v.get<std::uint64_t>(); return;
    case Kind::choice: f.set_choice(p, v.get<std::string>()); return;
  }
}

std::string default_value_text(const ProtocolField& f) {
  if (!f.default_text.empty()) return f.default_text;
  const nlohmann::json value = protocol_field_value(f, RunProtocol{});
  return value.is_string() ? value.get<std::string>() : value.dump();
}

nlohmann::json protocol_fields_json(const RunProtocol& p) {
  nlohmann::json j = nlohmann::json::object();
  for (const ProtocolGroup& g : protocol_groups())
    if (g.on(p)) j[std::string(g.key)] = g.notes(p);
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(Place::kResults)) continue;
    const nlohmann::json value = protocol_field_value(f, p);
    if (f.omitted_at_before_value && value == f.before_recorded) continue;
    const ProtocolGroup* group = group_of(f);
    if (!group)
      j[std::string(f.key)] = value;
    else if (group->on(p))
      j[std::string(group->key)][std::string(key_in_group(f))] = value;
  }
  return j;
}

void read_protocol_fields(const nlohmann::json& object, RunProtocol& p) {
  if (!object.is_object()) throw UsageError("field 'protocol' must be an object");
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(Place::kResults)) continue;
    const ProtocolGroup* group = group_of(f);
    if (group && !object.contains(std::string(group->key))) continue;  // off: the defaults
    const nlohmann::json* value = value_at(object, f.key);
    if (!value && f.before_recorded.is_null()) throw UsageError(fmt::format("field 'protocol.{}' is missing", f.key));
    if (!value) {
      set_as_before_recorded(f, p);
      continue;
    }
    if (const std::string wrong = set_protocol_field(f, *value, p); !wrong.empty())
      throw UsageError(fmt::format("field 'protocol.{}' {}", f.key, wrong));
  }
}

bool GivenProtocol::has(std::string_view key) const {
  if (!protocol_field(key)) throw std::logic_error(fmt::format("no protocol field {}", key));
  return keys.contains(key);
}

void GivenProtocol::give(std::string_view key, const nlohmann::json& value) {
  const ProtocolField* f = protocol_field(key);
  if (!f) throw std::logic_error(fmt::format("no protocol field {}", key));
  if (const std::string wrong = set_protocol_field(*f, value, values); !wrong.empty())
    throw UsageError(fmt::format("option {}: {}", f->option, wrong));
  keys.emplace(key);
}

}  // namespace abench
