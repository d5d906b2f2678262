// The backends abench knows, one row each: what the orchestrator and the workers need to
// know of an allocator beyond its calls (allocators/calls/<name>.h) and its identity
// (allocators/<name>.cc). Validation, `abench list`, entry-point sets, the instructions mode's
// settings and the workload rules are drawn from this table; a new backend is its two files,
// one row here, and its find_package block in CMakeLists.txt (docs/architecture.md).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "allocators/entry_sets.h"
#include "harness/layout.h"

namespace abench {

struct BackendTraits {
  std::string_view name;
  std::string_view debian_package;  // what provides its library ("" built in: glibc)
  // The entry-point sets it offers, its default first (allocators/entry_sets.h says why).
  std::array<EntrySet, 3> entry_set_list;
  std::size_t entry_set_count;
  // Set in instructions mode unless the variant sets it itself: what makes its counts
  // repeat exactly ("" none).
  std::string_view deterministic_env_name, deterministic_env_value;
  // The one workload it can run, and why (nullopt: every workload).
  std::optional<Workload> only_workload = std::nullopt;
  std::string_view why_only = "";
};

// A constant table, not one built on the heap: workers read it too, and a worker must not
// leave blocks of the allocator under test allocated for its own bookkeeping (docs/decisions.md,
// "Nothing on the tested allocator's heap").
// A row a backend, as the table reads:
// clang-format off
inline constexpr BackendTraits kBackendTable[] = {
    // glibc's own API is malloc and friends: native names the same calls, so --entry
    // native holds for a matrix of every backend; portable comes first, as a preload is
    // reached only through the malloc symbols.
    {"system", "", {EntrySet::portable, EntrySet::native}, 2, "", ""},
    {"mimalloc", "libmimalloc-dev", {EntrySet::native, EntrySet::portable, EntrySet::rust}, 3, "", ""},
    // jemalloc purges dirty pages on a timer, so its instruction counts would follow the
    // clock; with decay off they repeat exactly.
    {"jemalloc", "libjemalloc-dev", {EntrySet::native, EntrySet::portable, EntrySet::rust}, 3, "MALLOC_CONF",
     "dirty_decay_ms:-1,muzzy_decay_ms:-1"},
    {"tcmalloc", "libgoogle-perftools-dev", {EntrySet::native, EntrySet::portable}, 2, "", ""},
    {"arena", "", {EntrySet::native}, 1, "", "", Workload::workingset,
     "a bump arena frees nothing until it is reset, so any other workload would grow without bound"},
    // An allocator linked by file (-DABENCH_LINKED_LIBRARY): abench knows no API of it.
    {"linked", "", {EntrySet::portable}, 1, "", ""},
};
// clang-format on

inline std::span<const BackendTraits> backend_table() { return kBackendTable; }

inline const BackendTraits* backend_named(std::string_view name) {
  for (const BackendTraits& b : kBackendTable)
    if (b.name == name) return &b;
  return nullptr;
}

// The sets a backend offers, its default first; an unknown one: portable.
inline std::span<const EntrySet> entry_sets_of(std::string_view backend) {
  static constexpr std::array<EntrySet, 1> kUnknown = {EntrySet::portable};
  const BackendTraits* b = backend_named(backend);
  if (b == nullptr) return kUnknown;
  return std::span<const EntrySet>(b->entry_set_list).first(b->entry_set_count);
}

}  // namespace abench
