#include "src/flow/listing.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "allocators/backends.h"
#include "harness/layout.h"
#include "harness/protocol.h"
#include "src/plan/matrix.h"
#include "src/plan/protocol_fields.h"
#include "src/run/launcher.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"

namespace abench {

void print_listing() {
  fmt::print("backends (built):\n");
  ProcessLauncher launcher;
  for (const auto& backend : built_backends()) {
    // The worker's own self-check says which allocator really serves malloc there.
    std::string hello_line;
    LaunchRequest request{worker_path(backend), {"--self-check"}, {}, "", 30};
    const LaunchOutcome outcome = launcher.run(request, [&](std::string_view l) {
      hello_line = l;
      return 0.0;
    });
    std::string detail = describe(outcome);
    try {
      const auto hello = nlohmann::json::parse(hello_line);
      if (hello.value("type", "") == "hello")
        detail = fmt::format("{} (malloc from {})", hello.value("allocator_version", "?"),
                             hello.value("malloc_object", "?"));
      else
        detail = hello.value("error", detail);
    } catch (const std::exception&) {
    }
    std::vector<std::string_view> sets;
    for (EntrySet set : entry_sets_of(backend)) sets.push_back(name_of(set));
    fmt::print("  {:<10} {}; entry sets: {} (default first)\n", backend, detail, fmt::join(sets, ", "));
  }
  for (const auto& known : known_backends()) {
    const auto built = built_backends();
    if (std::find(built.begin(), built.end(), known) == built.end())
      fmt::print("  {:<10} not built ({})\n", known,
                 known == "linked" ? "scripts/build-worker linked LIBRARY builds one against a malloc replacement"
                                   : "library not found when configuring");
  }
  fmt::print("workloads (one operation):\n");
  for (const WorkloadRow& w : kWorkloads)
    fmt::print("  {:<14} {}{}\n", w.name, w.operation, w.raw ? " (raw blocks: no policy)" : "");
  fmt::print("measures (--measure):\n");
  for (const MeasureRow& m : kMeasures) fmt::print("  {:<14} {}\n", m.name, m.what);
  fmt::print("policies:  {}\n", fmt::join(kPolicyNames, ", "));
  fmt::print("protocol fields (a matrix's protocol.KEY, or the option; docs/matrix.md):\n");
  for (const ProtocolField& f : protocol_fields())
    if (f.in(ProtocolField::kMatrix) || f.in(ProtocolField::kOption))
      fmt::print("  {:<22} {:<24} default {:<18} {}\n", f.in(ProtocolField::kMatrix) ? f.key : "-", f.option,
                 default_value_text(f), allowed_values(f));
  fmt::print("matrices:\n");
  for (const auto& name : available_matrices()) {
    std::string description;
    try {
      std::ifstream in(resolve_matrix_path(name));
      description = nlohmann::json::parse(in).value("description", "");
    } catch (const std::exception&) {
      description = "(not valid JSON)";
    }
    fmt::print("  {:<10} {}\n", name, description);
  }
}

}  // namespace abench
