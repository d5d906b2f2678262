// abench list: what this build can measure.
#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/layout.h"
#include "src/commands.h"
#include "src/launcher.h"
#include "src/matrix.h"
#include "src/process_launcher.h"
#include "src/worker_registry.h"

namespace abench {

CLI::App* register_list_command(CLI::App& app) {
  return app.add_subcommand("list", "Print the backends built, workloads, policies and matrices");
}

int list_command() {
  fmt::print("backends (built):\n");
  ProcessLauncher launcher;
  for (const auto& backend : built_backends()) {
    // The worker's own self-check says which allocator really serves malloc there.
    std::string hello_line;
    LaunchRequest request{worker_path(backend), {"--self-check"}, {}, "", 30};
    const LaunchOutcome outcome = launcher.run(request, [&](std::string_view l) { hello_line = l; });
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
    fmt::print("  {:<10} {}\n", backend, detail);
  }
  for (const auto& known : known_backends()) {
    const auto built = built_backends();
    if (std::find(built.begin(), built.end(), known) == built.end())
      fmt::print("  {:<10} not built (library not found when configuring)\n", known);
  }
  fmt::print("workloads: {}\n", fmt::join(kWorkloadNames, ", "));
  fmt::print("policies:  {}\n", fmt::join(kPolicyNames, ", "));
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
  return 0;
}

}  // namespace abench
