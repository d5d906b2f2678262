// Reading one of abench's own JSON files as data from elsewhere: each value is reached
// through a JsonField that knows where it sits ("cells[3].processes[0].round"), so every refusal
// is a UsageError (exit 2) naming the file, the field and what is allowed.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/json_fields.h"
#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {

// Where a value sits in the file ("cells[3].processes[0].round"), for error messages.
class JsonField {
 public:
  // `kind` says what the file should have been, as errors begin: "malformed results".
  JsonField(const std::string& path, const nlohmann::json& value, std::string name,
            std::string_view kind = "malformed results")
      : path_(path), value_(value), name_(std::move(name)), kind_(kind) {}

  const nlohmann::json& json() const { return value_; }
  const std::string& name() const { return name_; }
  // For the parsers of matrix values, which say what is wrong after it.
  std::string where() const { return fmt::format("{}: {}: field '{}'", path_, kind_, name_); }

  [[noreturn]] void fail(const std::string& what) const {
    throw UsageError(fmt::format("{}: {}: field '{}' {}", path_, kind_, name_, what));
  }

  JsonField at(const char* key) const {
    if (!value_.is_object()) fail("must be an object");
    if (!value_.contains(key)) throw UsageError(fmt::format("{}: {}: field '{}' is missing", path_, kind_, child(key)));
    return JsonField(path_, value_[key], child(key), kind_);
  }
  bool has(const char* key) const { return value_.is_object() && value_.contains(key) && !value_[key].is_null(); }
  JsonField at(std::size_t index) const {
    return JsonField(path_, value_[index], fmt::format("{}[{}]", name_, index), kind_);
  }
  // A member whose key is data (an environment variable, a perf event).
  JsonField member(const std::string& key, const nlohmann::json& value) const {
    return JsonField(path_, value, name_ + "." + key, kind_);
  }

  std::size_t size_of_list() const {
    if (!value_.is_array()) fail("must be a list, got " + shown());
    return value_.size();
  }
  std::string text() const {
    if (!value_.is_string()) fail("must be a string, got " + shown());
    return value_.get<std::string>();
  }
  bool flag() const {
    if (!value_.is_boolean()) fail("must be true or false, got " + shown());
    return value_.get<bool>();
  }
  template <class T>
  T whole(T low, T high) const {
    T v{};
    try {
      v = whole_number<T>(value_, name_.c_str());
    } catch (const std::invalid_argument&) {
      fail(fmt::format("must be a whole number from {} to {}, got {}", low, high, shown()));
    }
    if (v < low || v > high) fail(fmt::format("is {} (allowed: {} to {})", v, low, high));
    return v;
  }
  // A figure abench measured: finite and not negative.
  double figure() const {
    if (!value_.is_number() || !std::isfinite(value_.get<double>()) || value_.get<double>() < 0)
      fail("must be a finite number, not negative, got " + shown());
    return value_.get<double>();
  }
  std::vector<double> figures() const {
    std::vector<double> out(size_of_list());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = at(i).figure();
    return out;
  }
  std::vector<std::string> texts() const {
    std::vector<std::string> out(size_of_list());
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = at(i).text();
    return out;
  }
  std::string shown() const { return printable(value_.dump().substr(0, 60)); }

 private:
  std::string child(const char* key) const { return name_.empty() ? key : name_ + "." + key; }

  const std::string& path_;
  const nlohmann::json& value_;
  std::string name_;
  std::string_view kind_;
};

}  // namespace abench
