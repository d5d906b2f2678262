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
// directly (raw blocks): the patterns allocator regressions are reported on. One row per
// workload: its name in matrices, options and files, and what one operation is (the
// options' help and `abench list`; docs/measurement.md says it at length). A new workload
// is a row here and its loop in harness/workloads.h and harness/count_runner.cc.
enum class Workload { allocate, zeroed, grow, append, noop, pair, batch, batch_reverse, xthread, workingset };
struct WorkloadRow {
  Workload workload;
  std::string_view name;
  bool raw;  // on the allocator directly: no buffer model, the policy axis does not apply
  std::string_view operation;
};
inline constexpr std::array<WorkloadRow, 10> kWorkloads{{
    {Workload::allocate, "allocate", false, "construct a buffer with capacity N"},
    {Workload::zeroed, "zeroed", false, "construct N zeroed bytes"},
    {Workload::grow, "grow", false, "construct capacity N, write N bytes, reserve 4 x max(N, 4096) more"},
    {Workload::append, "append", false, "construct capacity N, append the same N-byte input 8 times"},
    {Workload::noop, "noop", false, "the loop and barriers alone: the harness's own cost"},
    {Workload::pair, "pair", true, "one block of N bytes allocated and freed at once"},
    {Workload::batch, "batch", true, "L blocks allocated, then freed in allocation order"},
    {Workload::batch_reverse, "batch-reverse", true, "L blocks allocated, then freed in reverse order"},
    {Workload::xthread, "xthread", false, "an object allocated on one thread and freed on another"},
    {Workload::workingset, "workingset", false, "a mixed set of L objects up to N bytes built, then released"},
}};
inline constexpr std::array<std::string_view, kWorkloads.size()> kWorkloadNames = [] {
  std::array<std::string_view, kWorkloads.size()> names{};
  for (std::size_t i = 0; i < kWorkloads.size(); ++i) names[i] = kWorkloads[i].name;
  return names;
}();
static_assert(
    [] {
      for (std::size_t i = 0; i < kWorkloads.size(); ++i)
        if (static_cast<std::size_t>(kWorkloads[i].workload) != i) return false;
      return true;
    }(),
    "kWorkloads is in the enum's order");

inline constexpr bool is_raw_workload(Workload w) { return kWorkloads[static_cast<std::size_t>(w)].raw; }

template <class Enum, std::size_t N>
std::optional<Enum> enum_from_name(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<Enum>(i);
  return std::nullopt;
}

inline std::string_view name_of(Policy p) { return kPolicyNames[static_cast<std::size_t>(p)]; }
inline std::string_view name_of(Workload w) { return kWorkloadNames[static_cast<std::size_t>(w)]; }
inline std::optional<Policy> policy_from_name(std::string_view n) { return enum_from_name<Policy>(kPolicyNames, n); }
inline std::optional<Workload> workload_from_name(std::string_view n) {
  return enum_from_name<Workload>(kWorkloadNames, n);
}

}  // namespace abench
