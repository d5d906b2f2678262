#include "harness/entry_functions.h"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <sstream>

namespace abench {

std::vector<EntryFunction> resolve_entry_functions(const char* names) {
  std::vector<EntryFunction> out;
  std::istringstream words(names);
  for (std::string name; words >> name;) {
    // RTLD_DEFAULT: the definition every call in this process binds to (LD_PRELOAD first).
    void* address = dlsym(RTLD_DEFAULT, name.c_str());
    Dl_info info{};
    void* entry = nullptr;  // the symbol's ElfW(Sym) in the object's table
    if (address == nullptr || dladdr1(address, &info, &entry, RTLD_DL_SYMENT) == 0 || info.dli_fname == nullptr ||
        entry == nullptr)
      continue;
    const auto* symbol = static_cast<const ElfW(Sym)*>(entry);
    EntryFunction f;
    f.name = name;
    char resolved[4096];
    f.object = realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
    f.address = reinterpret_cast<std::uintptr_t>(address);
    f.file_address = symbol->st_value;  // the address objdump shows: the object's own
    f.size = symbol->st_size;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace abench
