#include "allocators/malloc_identity.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace abench::backend {

namespace {
std::string object_of(void* symbol) {
  Dl_info info{};
  if (symbol == nullptr || dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}
}  // namespace

std::string object_defining_malloc() {
  // RTLD_DEFAULT resolves as a call from the executable would: an interposer
  // (linked allocator or LD_PRELOAD) wins over libc.
  void* symbol = dlsym(RTLD_DEFAULT, "malloc");
  Dl_info self{}, found{};
  dladdr(reinterpret_cast<void*>(&object_defining_malloc), &self);
  if (symbol != nullptr && dladdr(symbol, &found) != 0 && found.dli_fbase == self.dli_fbase) {
    // The executable defines malloc itself: the counting worker's interposer, which
    // forwards to the allocator; what matters is whose malloc comes next.
    return object_of(dlsym(RTLD_NEXT, "malloc"));
  }
  return object_of(symbol);
}

std::string mimalloc_version_text(int v) {
  if (v >= 10000)
    return std::to_string(v / 10000) + "." + std::to_string((v / 100) % 100) + "." + std::to_string(v % 100);
  return std::to_string(v / 100) + "." + std::to_string((v / 10) % 10) + "." + std::to_string(v % 10);
}

std::string version_of_process_allocator() {
  if (auto* mi_version = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "mi_version"))) {
    return "mimalloc " + mimalloc_version_text(mi_version());
  }
  using Mallctl = int (*)(const char*, void*, std::size_t*, void*, std::size_t);
  if (auto* mallctl = reinterpret_cast<Mallctl>(dlsym(RTLD_DEFAULT, "mallctl"))) {
    const char* version = nullptr;
    std::size_t len = sizeof version;
    if (mallctl("version", &version, &len, nullptr, 0) == 0 && version) return std::string("jemalloc ") + version;
  }
  using TcVersion = const char* (*)(int*, int*, const char**);
  if (auto* tc_version = reinterpret_cast<TcVersion>(dlsym(RTLD_DEFAULT, "tc_version"))) {
    int major = 0, minor = 0;
    const char* patch = "";
    tc_version(&major, &minor, &patch);
    return "tcmalloc " + std::to_string(major) + "." + std::to_string(minor) + patch;
  }
  return "unknown (no mi_version, mallctl or tc_version)";
}

namespace {
std::string canonical_text(const std::string& path) {
  std::error_code ec;
  const auto resolved = std::filesystem::canonical(path, ec);
  return ec ? path : resolved.string();
}

std::string content_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The very file, or a byte-identical copy of it: abench runs each timed worker with its own
// copy of its allocator's library (src/run/process_copy.h).
bool same_object(const std::string& loaded, std::string_view built_against) {
  const std::string expected(built_against);
  if (canonical_text(loaded) == canonical_text(expected)) return true;
  std::error_code ec1, ec2;
  if (std::filesystem::file_size(loaded, ec1) != std::filesystem::file_size(expected, ec2) || ec1 || ec2) return false;
  return content_of(loaded) == content_of(expected);
}
}  // namespace

Identity identity_from_malloc_object(std::string name, std::string version, std::string_view expected,
                                     std::string_view built_against, const void* native_call) {
  // A variant that preloads an allocator into the system worker names the object that
  // must serve malloc instead of libc.
  std::string expected_object(expected);
  if (const char* preload = std::getenv("ABENCH_EXPECT_MALLOC_FROM"); preload && *preload) {
    std::error_code ec;
    expected_object = std::filesystem::canonical(preload, ec).filename().string();
    if (ec) expected_object = std::filesystem::path(preload).filename().string();
    version = "preloaded " + std::string(preload) + ": " + version_of_process_allocator();
  }
  expected = expected_object;
  Identity id{std::move(name), std::move(version), object_defining_malloc(), false, ""};
  std::error_code ec;
  std::string file = std::filesystem::canonical(id.malloc_object, ec).filename().string();
  if (ec) file = std::filesystem::path(id.malloc_object).filename().string();
  if (id.malloc_object.empty()) {
    id.problem = "could not resolve the object defining malloc (dlsym/dladdr failed)";
  } else if (const char* preload = std::getenv("ABENCH_EXPECT_MALLOC_FROM");
             !built_against.empty() && !(preload && *preload) && !same_object(id.malloc_object, built_against)) {
    id.problem = "malloc is served by " + canonical_text(id.malloc_object) + ", but this worker was built against " +
                 canonical_text(std::string(built_against)) + " (check LD_LIBRARY_PATH, LD_PRELOAD and the rpath)";
  } else if (const std::string native = native_call ? object_of(const_cast<void*>(native_call)) : "";
             !built_against.empty() && native_call && !same_object(native, built_against)) {
    id.problem = "the allocator's own calls come from " + canonical_text(native) +
                 ", but this worker was built against " + canonical_text(std::string(built_against));
  } else if (file.find(expected) == std::string::npos) {
    id.problem = "malloc is served by " + id.malloc_object + ", expected an object named *" + std::string(expected) +
                 "* for backend '" + id.name + "'";
  } else {
    id.serves_malloc = true;
  }
  return id;
}

}  // namespace abench::backend
