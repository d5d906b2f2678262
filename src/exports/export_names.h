// What every export says about a cell, in each tool's own convention: a name unique per
// variant (two builds of one allocator on the two sides of a compare never share one) made of
// key/value parts, and the unit of what was measured.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

struct CellIdentity {
  std::string variant;  // the variant's label as a name part: letters, digits and . _ + - only
  std::string side;     // "baseline" or "candidate" in a compare, else ""
  std::string backend, policy, workload;
  std::size_t size = 0, align_requested = 0, align_preferred = 0, live = 0;
};

// Each variant's label as a name part, distinct even where two labels differ only in
// characters a name part cannot hold.
std::vector<std::string> variant_name_parts(const RunResults& results);
CellIdentity identity_of(const RunResults& results, const CellRecord& cell, const std::vector<std::string>& variants);

// Google Benchmark's name/arg:value: abench/variant:A/backend:system/.../align:1-256/live:1
std::string arg_value_name(const CellIdentity& cell);
// Go's sub-benchmark key=value parts (benchstat's -col /size@num):
// BenchmarkAbench/variant=A/backend=system/.../align=1-256/live=1
std::string key_value_name(const CellIdentity& cell);

// The unit of a measure's figure per operation: ns/op, instr/op, cycles/op, task-clock-ns/op.
std::string unit_per_op(Measure measure);
// Go's GOARCH for a machine name uname(2) gives (x86_64 -> amd64, aarch64 -> arm64).
std::string go_arch(std::string_view machine);

// What a reader needs to know to compare two files: the measure, the protocol, and each
// variant's identity (label, side, allocator, entry points).
nlohmann::json export_context(const RunResults& results);

// A count over a cell's counted operations, per operation (0 when none were counted).
inline double per_op(std::uint64_t total, std::uint64_t operations) {
  return operations ? static_cast<double>(total) / static_cast<double>(operations) : 0;
}

// A failed or refused cell's reason, for formats that can carry one ("" when measured).
std::string cell_problem(const CellSummary& summary);

}  // namespace abench
