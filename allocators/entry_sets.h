// Entry-point sets: which of an allocator's calls the harness makes for each operation.
// Plain data shared by the CLI (validation, help, results) and the workers; the calls
// themselves are in allocators/calls/<backend>.h. docs/measurement.md has the table.
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

// The sets a backend offers, its default first. The default is `native`, each allocator's
// fastest calls for the request (jemalloc: malloc and free wherever no flag is needed), as
// its developers tune and a program linking it calls it; it is also what abench measured
// before entry sets existed, so stored baselines stay comparable. `portable` is one option
// away and is all a preloaded allocator offers (docs/measurement.md, "Entry points").
inline std::vector<EntrySet> entry_sets_of(std::string_view backend) {
  if (backend == "arena") return {EntrySet::native};
  if (backend == "mimalloc" || backend == "jemalloc") return {EntrySet::native, EntrySet::portable, EntrySet::rust};
  if (backend == "tcmalloc") return {EntrySet::native, EntrySet::portable};
  // glibc's own API is malloc and friends: native names the same calls, so --entry native
  // holds for a matrix of every backend; portable comes first, as a preload is reached
  // only through the malloc symbols.
  if (backend == "system") return {EntrySet::portable, EntrySet::native};
  return {EntrySet::portable};  // linked: an allocator abench knows no API of
}

}  // namespace abench
