// What a cell asks of a buffer: alignment pair, allocation policy, workload.
// Shared by the worker and the orchestrator (names are the wire and matrix spelling).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace abench {

// Requested alignment R (what the caller must get) and preferred alignment P (what the
// library picks for speed). Effective alignment A = max(R, P).
struct Alignment {
  std::size_t requested = 1;
  std::size_t preferred = 1;
  std::size_t effective() const { return requested > preferred ? requested : preferred; }
  bool operator==(const Alignment&) const = default;
};

inline constexpr bool is_power_of_two(std::size_t v) { return v != 0 && (v & (v - 1)) == 0; }

enum class Policy { exact, padded };
inline constexpr std::array<std::string_view, 2> kPolicyNames{"exact", "padded"};

// allocate..append build buffers; pair, batch and batch-reverse work on the allocator
// directly (raw blocks): the patterns allocator regressions are reported on.
enum class Workload { allocate, zeroed, grow, append, noop, pair, batch, batch_reverse, xthread, workingset };
inline constexpr std::array<std::string_view, 10> kWorkloadNames{
    "allocate", "zeroed", "grow", "append", "noop", "pair", "batch", "batch-reverse", "xthread", "workingset"};

inline constexpr bool is_raw_workload(Workload w) {
  return w == Workload::pair || w == Workload::batch || w == Workload::batch_reverse;
}

template <class Enum, std::size_t N>
std::optional<Enum> enum_from_name(const std::array<std::string_view, N>& names,
                                   std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

inline std::string_view name_of(Policy p) { return kPolicyNames[static_cast<std::size_t>(p)]; }
inline std::string_view name_of(Workload w) { return kWorkloadNames[static_cast<std::size_t>(w)]; }
inline std::optional<Policy> policy_from_name(std::string_view n) {
  return enum_from_name<Policy>(kPolicyNames, n);
}
inline std::optional<Workload> workload_from_name(std::string_view n) {
  return enum_from_name<Workload>(kWorkloadNames, n);
}

}  // namespace abench
