#include "src/worker_registry.h"

#include <filesystem>
#include <sstream>

#ifndef ABENCH_BACKENDS_BUILT
#define ABENCH_BACKENDS_BUILT ""
#endif

namespace abench {

std::string executable_directory() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "." : self.parent_path().string();
}

std::string worker_path(const std::string& backend, WorkerMode mode) {
  return executable_directory() + (mode == WorkerMode::count ? "/abench-counter-" : "/abench-worker-") + backend;
}

std::vector<std::string> built_backends() {
  std::vector<std::string> names;
  std::istringstream list(ABENCH_BACKENDS_BUILT);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty() && std::filesystem::exists(worker_path(name))) names.push_back(name);
  return names;
}

}  // namespace abench
