#include "allocators/malloc_identity.h"

#include <dlfcn.h>

#include <filesystem>

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

Identity identity_from_malloc_object(std::string name, std::string version,
                                     std::string_view expected) {
  Identity id{std::move(name), std::move(version), object_defining_malloc(), false, ""};
  const std::string file = std::filesystem::path(id.malloc_object).filename().string();
  if (id.malloc_object.empty()) {
    id.problem = "could not resolve the object defining malloc (dlsym/dladdr failed)";
  } else if (file.find(expected) == std::string::npos) {
    id.problem = "malloc is served by " + id.malloc_object + ", expected an object named *" +
                 std::string(expected) + "* for backend '" + id.name + "'";
  } else {
    id.serves_malloc = true;
  }
  return id;
}

}  // namespace abench::backend
