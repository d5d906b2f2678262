// The protocol's numbers and switches, one row each: the key a matrix file's `protocol`
// and results.json's `protocol` use, the command line's option, the allowed range, the
// help text, and the value a results.json written before the field existed implies.
// The matrix reader, the options, results.json's writer and reader (so also --resume) and
// `abench list` all draw from this table: a new field is one row here and one member of
// RunProtocol, plus the code that uses it.
//
// The protocol's fields with shapes of their own (measure, order, cpu, seed, the process
// mode, adaptive rounds) are read and written beside the table.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/plan/matrix.h"

namespace abench {

struct ProtocolField {
  enum class Kind { whole, decimal, flag };
  std::string_view key;     // protocol.KEY in matrix files and results.json
  std::string_view option;  // the command line's option
  std::string_view help;
  Kind kind = Kind::whole;
  int RunProtocol::*whole = nullptr;       // Kind::whole
  double RunProtocol::*decimal = nullptr;  // Kind::decimal
  bool RunProtocol::*flag = nullptr;       // Kind::flag
  double low = 0, high = 0;                // numbers: the allowed range, both ends included
  std::string_view unit;                   // numbers: "ms", "s", ""
  bool option_sets = true;                 // flags: the value the option gives (--no-pin: false)
  // A results.json written before the field existed holds this value; none: every results.json has it.
  std::optional<double> before_recorded;
};

const std::vector<ProtocolField>& protocol_fields();

// results.json's protocol.process_mode: which processes measure the cells
// (process-per-variant, fresh-process-per-cell, or context: both).
std::string_view process_mode_name(const RunProtocol& protocol);
// Sets the mode named (a results.json without the field: process-per-variant); returns what
// is wrong ("" when nothing), to be put after the field's name.
std::string set_process_mode(const nlohmann::json& value, RunProtocol& protocol);
const ProtocolField* protocol_field(std::string_view key);

// "a whole number from 1 to 10000", "a number from 0.001 to 60000 ms", "true or false".
std::string allowed_values(const ProtocolField& field);

// Checks `value` against the row and sets it in `protocol`; returns what is wrong ("" when
// nothing), to be put after the field's name.
std::string set_protocol_field(const ProtocolField& field, const nlohmann::json& value, RunProtocol& protocol);
nlohmann::json protocol_field_value(const ProtocolField& field, const RunProtocol& protocol);
// The value a results.json written before the field existed implies, as JSON (null: none).
nlohmann::json value_before_recorded(const ProtocolField& field);

// The command line's text of an option, as the JSON value a matrix file would hold.
nlohmann::json protocol_option_value(const ProtocolField& field, const std::string& text);

}  // namespace abench
