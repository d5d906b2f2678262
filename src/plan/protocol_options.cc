// What an option's text means for a protocol field, and what is wrong with it: the command
// line's side of the rows in protocol_fields.cc.
#include <optional>
#include <string>

#include <fmt/format.h>

#include "src/plan/protocol_fields.h"
#include "src/util/text.h"

namespace abench {

using Kind = ProtocolField::Kind;

nlohmann::json protocol_option_value(const ProtocolField& f, const std::string& text) {
  switch (f.kind) {
    case Kind::flag: return f.option_sets;
    case Kind::choice: return text;
    case Kind::whole:
    case Kind::seed:
      // Digits only: std::stoull would take "12abc" and " 12", CLI11 would wrap -1.
      if (text.empty() || text.size() > 20 || text.find_first_not_of("0123456789") != std::string::npos)
        return text;  // a string: set_protocol_field says what is allowed
      try {
        return std::stoull(text);
      } catch (const std::out_of_range&) {
        return text;
      }
    case Kind::decimal: break;
  }
  if (f.duration) {
    const std::optional<double> seconds = parse_duration(text);
    return seconds ? nlohmann::json(*seconds) : nlohmann::json(text);
  }
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  return text;
}

std::string wrong_option_text(const ProtocolField& f, const std::string& text) {
  RunProtocol scratch;
  const nlohmann::json value = protocol_option_value(f, text);
  if (set_protocol_field(f, value, scratch).empty()) return "";
  if (f.kind == Kind::choice) return fmt::format("unknown {} '{}' (allowed: {})", f.key, text, allowed_values(f));
  // A duration's unit is what a person gets wrong: 600 could be seconds or minutes.
  if (f.duration)
    return fmt::format("'{}' is not a duration from {:g}s to {:g}h (allowed: a number with s, m or h: 90s, 10m, 1.5h)",
                       text, f.low, f.high / 3600);
  const bool whole = f.kind == Kind::whole || f.kind == Kind::seed;
  return fmt::format("{} (allowed: {})",
                     value.is_string() ? fmt::format("'{}' is not a {}number", text, whole ? "whole " : "")
                                       : fmt::format("{} is out of range", text),
                     allowed_values(f));
}

}  // namespace abench
