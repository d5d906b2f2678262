#include "src/run/preflight.h"

#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "harness/protocol.h"
#include "src/util/errors.h"
#include "src/util/text.h"
#include "src/run/worker_registry.h"

namespace abench {
namespace {

struct SelfCheck {
  LaunchRequest request;
  LaunchOutcome outcome;
  std::string first_line;  // on the protocol descriptor
};

SelfCheck self_check(const Variant& variant, WorkerMode mode, WorkerLauncher& launcher) {
  SelfCheck check;
  LaunchRequest& request = check.request;
  request.executable = worker_path(variant, mode);
  request.arguments = {"--self-check"};
  if (!variant.plugin.empty()) request.arguments.insert(request.arguments.end(), {"--plugin", variant.plugin});
  request.environment = variant.env;
  if (!variant.preload.empty()) {
    request.environment.emplace_back("LD_PRELOAD", variant.preload);
    request.environment.emplace_back("ABENCH_EXPECT_MALLOC_FROM", variant.preload);
  }
  request.timeout_s = 30;
  check.outcome = launcher.run(request, [&](std::string_view line) {
    if (check.first_line.empty()) check.first_line = line;
    return 0.0;
  });
  return check;
}

// The C library is every worker's, the same file on both sides of any pair.
bool is_c_library(const std::string& object) {
  const std::string name = std::filesystem::path(object).filename().string();
  return name.rfind("libc.so", 0) == 0 || name.rfind("libc-", 0) == 0;
}

// The hello of a self-check that passed; an empty object otherwise.
nlohmann::json hello_of(const SelfCheck& check) {
  try {
    nlohmann::json hello = nlohmann::json::parse(check.first_line);
    if (check.outcome.exit_code == 0 && hello.is_object() && hello.value("type", "") == "hello") return hello;
  } catch (const std::exception&) {
  }
  return nlohmann::json::object();
}

// The shared object a self-check says serves malloc, if the worker takes a copy of it.
std::string library_to_copy(const nlohmann::json& hello) {
  std::string object;
  try {
    if (hello.value("accepts_library_copy", false)) object = hello.value("malloc_object", "");
  } catch (const std::exception&) {
  }
  const bool shared_object = object.find(".so") != std::string::npos && std::filesystem::path(object).is_absolute();
  return shared_object && !is_c_library(object) ? object : "";
}

// What timed workers' self-checks said, by worker file (and its size and time), preload and
// environment: the run's own start-up check (preflight_variants) spares it a second spawn,
// which under qemu-user costs a quarter of a second.
std::map<std::string, nlohmann::json>& hellos_seen() {
  static std::map<std::string, nlohmann::json> seen;
  return seen;
}

std::string self_check_key(const Variant& variant) {
  const std::string path = worker_path(variant, WorkerMode::time);
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto time = std::filesystem::last_write_time(path, ec).time_since_epoch().count();
  std::string key = fmt::format("{}\n{}\n{}\n{}", path, size, time, variant.preload);
  for (const auto& [k, v] : variant.env) key += "\n" + k + "=" + v;
  return key;
}

void check_worker(const Variant& variant, WorkerMode mode, WorkerLauncher& launcher) {
  const SelfCheck check = self_check(variant, mode, launcher);
  const LaunchRequest& request = check.request;
  const LaunchOutcome& outcome = check.outcome;
  const std::string& first_line = check.first_line;
  const std::string which = fmt::format("variant '{}': {} worker {}", variant.label(),
                                        mode == WorkerMode::count ? "counting" : "timed", request.executable);
  if (!outcome.started) throw UsageError(fmt::format("{}: {}", which, describe(outcome)));
  if (first_line.empty() && outcome.stdout_tail.find("\"type\":\"hello\"") != std::string::npos)
    throw UsageError(
        fmt::format("{} speaks worker protocol 1 (reports on stdout); this abench reads protocol {} "
                    "on descriptor {}: rebuild the worker with this abench (scripts/build-worker)",
                    which, kProtocolVersion, kProtocolFd));
  nlohmann::json hello;
  try {
    hello = nlohmann::json::parse(first_line);
  } catch (const std::exception&) {
    throw UsageError(
        fmt::format("{} is not an abench worker: its --self-check reported '{}' on descriptor {} and "
                    "printed '{}' ({})",
                    which, printable(first_line.substr(0, 120)), kProtocolFd, printable_tail(outcome.stdout_tail, 120),
                    describe(outcome)));
  }
  if (hello.value("type", "") == "fatal")
    throw UsageError(fmt::format("{} refused: {}", which, printable(hello.value("error", ""))));
  if (hello.value("type", "") != "hello" || !hello.contains("protocol"))
    throw UsageError(fmt::format("{} is not an abench worker: its --self-check reported '{}'", which,
                                 printable(first_line.substr(0, 120))));
  if (hello["protocol"] != kProtocolVersion)
    throw UsageError(fmt::format("{} speaks worker protocol {}, this abench speaks {}", which, hello["protocol"].dump(),
                                 kProtocolVersion));
  if (outcome.exit_code != 0) throw UsageError(fmt::format("{}: self-check {}", which, describe(outcome)));
  // Results are filed under the variant's backend: a worker of another backend (exe=) would
  // put one allocator's figures under another's name.
  if (const std::string backend = hello.value("backend", ""); backend != variant.backend)
    throw UsageError(
        fmt::format("{} is the worker of backend '{}', but the variant says backend '{}': name "
                    "backend={} in the variant",
                    which, backend, variant.backend, backend));
  if (mode == WorkerMode::time) hellos_seen()[self_check_key(variant)] = hello_of(check);
}

const nlohmann::json& timed_hello(Variant variant, WorkerLauncher& launcher) {
  const std::string key = self_check_key(variant);
  if (const auto seen = hellos_seen().find(key); seen != hellos_seen().end()) return seen->second;
  variant.plugin.clear();  // which object serves malloc is the worker's and its environment's matter
  return hellos_seen()[key] = hello_of(self_check(variant, WorkerMode::time, launcher));
}

}  // namespace

std::vector<std::string> allocator_libraries(const std::vector<Variant>& variants, WorkerLauncher& launcher) {
  std::vector<std::string> libraries;
  for (const Variant& v : variants) libraries.push_back(library_to_copy(timed_hello(v, launcher)));
  return libraries;
}

std::vector<std::string> timed_loops(const std::vector<Variant>& variants, WorkerLauncher& launcher) {
  std::vector<std::string> loops;
  for (const Variant& v : variants) {
    const nlohmann::json& hello = timed_hello(v, launcher);
    loops.push_back(
        hello.contains("timed_loop") && hello["timed_loop"].is_string() ? hello["timed_loop"].get<std::string>() : "");
  }
  return loops;
}

void preflight_variants(const std::vector<Variant>& variants, bool counts, WorkerLauncher& launcher) {
  for (const Variant& v : variants) {
    check_worker(v, WorkerMode::time, launcher);
    if (counts) check_worker(v, WorkerMode::count, launcher);
  }
}

}  // namespace abench
