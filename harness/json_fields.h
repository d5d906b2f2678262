// Reading a JSON field into a C++ integer without undefined behaviour: nlohmann converts
// a float (1e300, -1.5) into an unsigned with a plain cast, which is undefined out of range.
// A whole-number field must hold a whole number in the type's range; anything else throws
// std::invalid_argument naming the field.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace abench {

template <class T>
T whole_number(const nlohmann::json& v, const char* field) {
  static_assert(std::is_integral_v<T> && !std::is_same_v<T, bool>);
  auto fail = [&] {
    throw std::invalid_argument(std::string("field '") + field + "' must be a whole number from " +
                                std::to_string(std::numeric_limits<T>::min()) + " to " +
                                std::to_string(std::numeric_limits<T>::max()) + ", got " + v.dump());
  };
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) fail();
    return static_cast<T>(u);
  }
  if (v.is_number_integer()) {
    const auto s = v.get<std::int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (s < 0) fail();
      if (static_cast<std::uint64_t>(s) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) fail();
    } else {
      if (s < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
          s > static_cast<std::int64_t>(std::numeric_limits<T>::max()))
        fail();
    }
    return static_cast<T>(s);
  }
  fail();
  return T{};
}

template <class T>
struct is_whole_number_list : std::false_type {};
template <class U, class A>
struct is_whole_number_list<std::vector<U, A>> : std::bool_constant<std::is_integral_v<U> && !std::is_same_v<U, bool>> {
};

// j[key] into out: whole numbers (and lists of them) checked as above, the rest as nlohmann reads them.
template <class T>
void read_field(const nlohmann::json& j, const char* key, T& out) {
  const nlohmann::json& v = j.at(key);
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    out = whole_number<T>(v, key);
  } else if constexpr (is_whole_number_list<T>::value) {
    if (!v.is_array()) throw std::invalid_argument(std::string("field '") + key + "' must be a list, got " + v.dump());
    out.clear();
    for (const auto& item : v) out.push_back(whole_number<typename T::value_type>(item, key));
  } else {
    v.get_to(out);
  }
}

}  // namespace abench
