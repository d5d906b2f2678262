// A variant is what one worker process measures: a backend and a buffer policy, and, for
// comparisons, a plugin under test, an allocator preloaded into the system worker, another
// build of the worker, and environment settings (docs/compare.md).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/layout.h"
#include "src/plan/matrix.h"

namespace abench {

using Environment = std::vector<std::pair<std::string, std::string>>;

struct Variant {
  std::string backend = "system";
  Policy policy = Policy::exact;
  std::string name;     // the user's label; empty: derived by label()
  std::string plugin;   // shared object the worker dlopens ("" none)
  std::string preload;  // LD_PRELOADed allocator ("" none)
  std::string exe;      // another worker executable ("" the built one)
  std::string entry;    // entry-point set (allocators/entry_sets.h); "" the matrix's, else the backend's default
  Environment env;

  std::string label() const;
};

// Labels are names in every table and export, so no two variants of a plan may share one:
// where derived labels collide (two builds of one allocator at /opt/a/lib/libx.so and
// /opt/b/lib/libx.so), each shows its files from where their paths part ("preload:a/lib/libx.so");
// where the specs are the same, a number tells them apart.
void give_distinct_labels(std::vector<Variant>& variants);

// A --baseline/--candidate SPEC as written: comma-separated key=value fields
//   backend=NAME policy=NAME entry=SET plugin=PATH preload=PATH exe=PATH env=KEY=VALUE label=TEXT
// An env value may itself contain commas (MALLOC_CONF=a:1,b:2): a field that does not
// start with a known key continues the previous env value.
struct VariantSpec {
  std::optional<std::string> backend;
  std::optional<Policy> policy;
  Variant fields;  // everything else
};

// Throws UsageError naming `option` and what is allowed.
VariantSpec parse_variant_spec(const std::string& text, const std::string& option,
                               const std::vector<std::string>& built_backends);

// The variants a spec stands for: what it names, and the matrix's backends and policies for
// what it leaves open (so one compare can span every backend of a matrix).
std::vector<Variant> expand_variant_spec(const VariantSpec& spec, const Matrix& matrix);

}  // namespace abench
