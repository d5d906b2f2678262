#include "src/plan/protocol_fields.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace abench {
namespace {

using Kind = ProtocolField::Kind;

ProtocolField whole(std::string_view key, std::string_view option, int RunProtocol::*member, double low, double high,
                    std::string_view help) {
  ProtocolField f;
  f.key = key, f.option = option, f.help = help, f.kind = Kind::whole, f.whole = member, f.low = low, f.high = high;
  return f;
}
ProtocolField decimal(std::string_view key, std::string_view option, double RunProtocol::*member, double low,
                      double high, std::string_view unit, std::string_view help, std::optional<double> before = {}) {
  ProtocolField f;
  f.key = key, f.option = option, f.help = help, f.kind = Kind::decimal, f.decimal = member, f.low = low, f.high = high;
  f.unit = unit, f.before_recorded = before;
  return f;
}
ProtocolField flag(std::string_view key, std::string_view option, bool RunProtocol::*member, bool option_sets,
                   bool before, std::string_view help) {
  ProtocolField f;
  f.key = key, f.option = option, f.help = help, f.kind = Kind::flag, f.flag = member, f.option_sets = option_sets;
  f.before_recorded = before ? 1.0 : 0.0;
  return f;
}

}  // namespace

const std::vector<ProtocolField>& protocol_fields() {
  static const std::vector<ProtocolField> rows{
      whole("samples", "--samples", &RunProtocol::samples, 1, 10000, "Timed samples per process"),
      whole("processes", "--processes", &RunProtocol::processes, 1, 1000, "Worker processes per variant"),
      decimal("min_batch_ms", "--min-batch-ms", &RunProtocol::min_batch_ms, 0.001, 60000, "ms",
              "Duration of one timed batch, on average (its count predicted from the warm-up; each within 4%)"),
      decimal("worker_timeout_s", "--worker-timeout", &RunProtocol::worker_timeout_s, 0, 604800, "s",
              "Seconds before a worker is killed (0: from the cell count)", 0.0),
      flag("touch", "--touch", &RunProtocol::touch, true, false,
           "Read every page of each built buffer before dropping it"),
      flag("pin", "--no-pin", &RunProtocol::pin, false, true, "Do not pin workers to a CPU"),
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
  };
  return rows;
}

const ProtocolField* protocol_field(std::string_view key) {
  for (const ProtocolField& f : protocol_fields())
    if (f.key == key) return &f;
  return nullptr;
}

std::string allowed_values(const ProtocolField& f) {
  switch (f.kind) {
    case Kind::whole: return fmt::format("a whole number from {:g} to {:g}", f.low, f.high);
    case Kind::decimal:
      return fmt::format("a number from {:g} to {:g}{}{}", f.low, f.high, f.unit.empty() ? "" : " ", f.unit);
    case Kind::flag: return "true or false";
  }
  return "";
}

std::string set_protocol_field(const ProtocolField& f, const nlohmann::json& value, RunProtocol& p) {
  const std::string wrong = fmt::format("is {} (allowed: {})", value.dump().substr(0, 40), allowed_values(f));
  switch (f.kind) {
    case Kind::flag:
      if (!value.is_boolean()) return wrong;
      p.*f.flag = value.get<bool>();
      return "";
    case Kind::whole: {
      if (!value.is_number_integer() && !value.is_number_unsigned()) return wrong;
      const double v = value.is_number_unsigned() ? static_cast<double>(value.get<std::uint64_t>())
                                                  : static_cast<double>(value.get<std::int64_t>());
      if (v < f.low || v > f.high) return wrong;
      p.*f.whole = static_cast<int>(v);
      return "";
    }
    case Kind::decimal:
      // NaN passes every comparison, and 1e300 ms overflows a deadline built from it.
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < f.low ||
          value.get<double>() > f.high)
        return wrong;
      p.*f.decimal = value.get<double>();
      return "";
  }
  return wrong;
}

nlohmann::json protocol_field_value(const ProtocolField& f, const RunProtocol& p) {
  switch (f.kind) {
    case Kind::flag: return p.*f.flag;
    case Kind::whole: return p.*f.whole;
    case Kind::decimal: return p.*f.decimal;
  }
  return nullptr;
}

nlohmann::json value_before_recorded(const ProtocolField& f) {
  if (!f.before_recorded) return nullptr;
  return f.kind == Kind::flag ? nlohmann::json(*f.before_recorded != 0) : nlohmann::json(*f.before_recorded);
}

nlohmann::json protocol_option_value(const ProtocolField& f, const std::string& text) {
  if (f.kind == Kind::flag) return f.option_sets;
  if (f.kind == Kind::whole) {
    // Digits only: std::stoll would take "12abc" and " 12", CLI11 would wrap -1.
    if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos)
      return text;  // a string: set_protocol_field says what is allowed
    return std::stoll(text);
  }
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return text;
}

std::string_view process_mode_name(const RunProtocol& protocol) {
  if (protocol.context) return "context";
  return protocol.fresh_process_per_cell ? "fresh-process-per-cell" : "process-per-variant";
}

std::string set_process_mode(const nlohmann::json& value, RunProtocol& protocol) {
  const std::string name = value.is_string() ? value.get<std::string>() : "";
  if (name != "process-per-variant" && name != "fresh-process-per-cell" && name != "context")
    return "must be one of process-per-variant, fresh-process-per-cell, context";
  protocol.fresh_process_per_cell = name == "fresh-process-per-cell";
  protocol.context = name == "context";
  return "";
}

}  // namespace abench
