// Entry-point sets: which of an allocator's calls the harness makes for each operation.
// Plain data shared by the CLI (validation, help, results) and the workers; the calls
// themselves are in allocators/calls/<backend>.h, and which sets a backend offers in
// allocators/backends.h (entry_sets_of). docs/measurement.md has the table.
//
// A backend's default is `native`, each allocator's fastest calls for the request (jemalloc:
// malloc and free wherever no flag is needed), as its developers tune and a program linking
// it calls it; it is also what abench measured before entry sets existed, so stored
// baselines stay comparable. `portable` is one option away and is all a preloaded allocator
// offers (docs/measurement.md, "Entry points").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abench {

enum class EntrySet {
  portable,  // malloc, calloc, realloc, free, posix_memalign: what C programs and LD_PRELOAD users get
  native,    // the allocator's own API (mi_*, mallocx/sdallocx, tc_*), its fast paths where the request allows
  rust,      // what the allocator's widely used Rust GlobalAlloc binding calls
};

inline std::string_view name_of(EntrySet set) {
  switch (set) {
    case EntrySet::portable: return "portable";
    case EntrySet::native: return "native";
    case EntrySet::rust: return "rust";
  }
  return "?";
}

inline std::optional<EntrySet> entry_set_named(std::string_view name) {
  for (EntrySet set : {EntrySet::portable, EntrySet::native, EntrySet::rust})
    if (name == name_of(set)) return set;
  return std::nullopt;
}

}  // namespace abench
