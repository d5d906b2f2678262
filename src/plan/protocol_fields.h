// Every field of the protocol, one row each: the key a matrix file's `protocol` and
// results.json's `protocol` use, the command line's option, the allowed values, the help
// text, and the value a results.json written before the field existed implies. The matrix
// reader, the options, results.json's writer and reader (so also --resume) and `abench list`
// are loops over this table: a new field is one row here and one member of RunProtocol, plus
// the code that uses it (docs/architecture.md, "Where a change goes").
//
// Kinds: whole and decimal numbers in a range, flags, seeds (any 64-bit number), and choices
// (a name from a list, however RunProtocol holds it). Fields that go together sit in a group:
// a row keyed "GROUP.KEY" is written inside the object GROUP, which a results.json holds only
// while the group is on (until_interval: the adaptive rounds).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/plan/matrix.h"

namespace abench {

struct ProtocolField {
  enum class Kind { whole, decimal, flag, seed, choice };
  // Where a field is read and written: a matrix file, results.json, the command line.
  enum Place : unsigned { kMatrix = 1, kResults = 2, kOption = 4, kEverywhere = 7 };

  std::string_view key;  // protocol.KEY; "GROUP.KEY" inside a group
  std::string option;    // the command line's option ("" with no kOption)
  std::string help;
  Kind kind = Kind::whole;
  unsigned places = kEverywhere;
  int RunProtocol::*whole = nullptr;           // Kind::whole
  double RunProtocol::*decimal = nullptr;      // Kind::decimal
  bool RunProtocol::*flag = nullptr;           // Kind::flag
  std::uint64_t RunProtocol::*seed = nullptr;  // Kind::seed
  std::vector<std::string_view> choices;       // Kind::choice: the names allowed
  std::string_view (*choice_of)(const RunProtocol&) = nullptr;
  void (*set_choice)(RunProtocol&, std::string_view) = nullptr;
  double low = 0, high = 0;  // numbers: the allowed range, both ends included
  std::string_view unit;     // numbers: "ms", "s", "%", ""
  double scale = 1;          // decimal: the files' value is the member's times this (a fraction as a percent)
  std::string_view none;     // whole: the text written for -1 ("last allowed")
  bool option_sets = true;   // flags: the value the option gives (--no-pin: false)
  bool duration = false;     // seconds the option takes as a duration with its unit (90s, 10m, 1.5h)
  std::string default_text;  // the option's help and `abench list`: the default, when not the member's value
  // A results.json written before the field existed holds this value (null: every one has it).
  nlohmann::json before_recorded;
  bool omitted_at_before_value = false;  // written only when it differs from before_recorded

  bool in(Place place) const { return (places & place) != 0; }
};

// Fields that are written together, inside an object of their own.
struct ProtocolGroup {
  std::string_view key;
  bool (*on)(const RunProtocol&);               // results.json holds the group only then
  nlohmann::json (*notes)(const RunProtocol&);  // the rules' text written beside the fields
};

const std::vector<ProtocolField>& protocol_fields();
const std::vector<ProtocolGroup>& protocol_groups();
const ProtocolField* protocol_field(std::string_view key);
// The group of a "GROUP.KEY" row (nullptr: none), and KEY.
const ProtocolGroup* group_of(const ProtocolField& field);
std::string_view key_in_group(const ProtocolField& field);

// results.json's protocol.process_mode: which processes measure the cells
// (process-per-variant, fresh-process-per-cell, or context: both).
std::string_view process_mode_name(const RunProtocol& protocol);
// protocol.layout: "drawn", "fixed" or "kernel".
std::string_view layout_name(const RunProtocol& protocol);

// "a whole number from 1 to 10000", "a number from 0.001 to 60000 ms", "true or false",
// "shuffled, matrix".
std::string allowed_values(const ProtocolField& field);

// Checks `value` against the row and sets it in `protocol`; returns what is wrong ("" when
// nothing), to be put after the field's name.
std::string set_protocol_field(const ProtocolField& field, const nlohmann::json& value, RunProtocol& protocol);
nlohmann::json protocol_field_value(const ProtocolField& field, const RunProtocol& protocol);
// Sets what a file without the field means (its before_recorded value), unchecked: a value
// such as "no budget" lies outside the range a given one must keep.
void set_as_before_recorded(const ProtocolField& field, RunProtocol& protocol);
// The field's value as the command line's help and `abench list` show its default.
std::string default_value_text(const ProtocolField& field);

// The command line's text of an option, as the JSON value a matrix file would hold.
nlohmann::json protocol_option_value(const ProtocolField& field, const std::string& text);
// What is wrong with the option's text ("" when nothing): "'x' is not a number (allowed: ...)".
std::string wrong_option_text(const ProtocolField& field, const std::string& text);

// results.json's protocol fields (every row with kResults, groups as objects), and back:
// each field checked by its row, a missing one taken as before_recorded or refused.
// Errors name 'protocol.KEY' and what it allows.
nlohmann::json protocol_fields_json(const RunProtocol& protocol);
void read_protocol_fields(const nlohmann::json& protocol_object, RunProtocol& protocol);

// The protocol's fields given on the command line: their values, checked by the rows' rules
// as they were parsed, and which ones were given.
struct GivenProtocol {
  RunProtocol values;
  std::set<std::string, std::less<>> keys;
  // Whether the field was given (std::logic_error for a key the table does not have).
  bool has(std::string_view key) const;
  // Gives the field `value`, checked by its row (UsageError naming the option when wrong).
  void give(std::string_view key, const nlohmann::json& value);
};

}  // namespace abench
