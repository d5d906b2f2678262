#include "src/run/worker_registry.h"

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

std::string worker_path(const Variant& variant, WorkerMode mode) {
  if (variant.exe.empty()) return worker_path(variant.backend, mode);
  if (mode == WorkerMode::time) return variant.exe;
  const std::filesystem::path exe(variant.exe);
  std::string name = exe.filename().string();
  if (const auto at = name.find("abench-worker-"); at != std::string::npos)
    name.replace(at, std::string("abench-worker-").size(), "abench-counter-");
  return (exe.parent_path() / name).string();
}

std::vector<std::string> built_backends() {
  std::vector<std::string> names;
  std::istringstream list(ABENCH_BACKENDS_BUILT);
  for (std::string name; std::getline(list, name, ',');)
    if (!name.empty() && std::filesystem::exists(worker_path(name))) names.push_back(name);
  return names;
}

}  // namespace abench
