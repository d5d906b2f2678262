#include "harness/plugin.h"

#include <dlfcn.h>

#include <stdexcept>
#include <vector>

namespace abench {

std::shared_ptr<LoadedPlugin> load_plugin(const std::string& path) {
  // RTLD_LOCAL: the plugin's symbols do not interpose on anything; RTLD_NOW: a missing
  // dependency is an error here, not a crash mid-measurement. Never dlclosed.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) throw std::runtime_error("cannot load plugin " + path + ": " + dlerror());
  auto entry = reinterpret_cast<abench_plugin_entry>(dlsym(handle, ABENCH_PLUGIN_ENTRY));
  if (entry == nullptr)
    throw std::runtime_error("plugin " + path +
                             " does not export " ABENCH_PLUGIN_ENTRY " (see include/abench/plugin.h)");
  const abench_plugin* plugin = entry();
  if (plugin == nullptr) throw std::runtime_error("plugin " + path + ": " ABENCH_PLUGIN_ENTRY "() returned NULL");
  if (plugin->abi_version != ABENCH_PLUGIN_ABI_VERSION)
    throw std::runtime_error("plugin " + path + " has ABI version " + std::to_string(plugin->abi_version) +
                             ", this worker speaks " + std::to_string(ABENCH_PLUGIN_ABI_VERSION));
  if ((plugin->buffer == nullptr) == (plugin->allocator == nullptr))
    throw std::runtime_error("plugin " + path + " must describe exactly one subject: buffer or allocator");
  std::vector<std::string> missing;
  if (const auto* b = plugin->buffer) {
    if (!b->create) missing.push_back("buffer.create");
    if (!b->reserve) missing.push_back("buffer.reserve");
    if (!b->append) missing.push_back("buffer.append");
    if (!b->data) missing.push_back("buffer.data");
    if (!b->length) missing.push_back("buffer.length");
    if (!b->capacity) missing.push_back("buffer.capacity");
    if (!b->destroy) missing.push_back("buffer.destroy");
  } else {
    const auto* a = plugin->allocator;
    if (!a->allocate) missing.push_back("allocator.allocate");
    if (!a->allocate_zeroed) missing.push_back("allocator.allocate_zeroed");
    if (!a->grow) missing.push_back("allocator.grow");
    if (!a->deallocate) missing.push_back("allocator.deallocate");
    if (!a->usable_size) missing.push_back("allocator.usable_size");
  }
  if (!missing.empty()) {
    std::string list;
    for (const auto& m : missing) {
      if (!list.empty()) list += ", ";
      list += m;
    }
    throw std::runtime_error("plugin " + path + " leaves these functions NULL: " + list);
  }
  return std::make_shared<LoadedPlugin>(LoadedPlugin{path, plugin});
}

}  // namespace abench
