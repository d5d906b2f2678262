/* Test plugin: claims an ABI version this abench does not speak. */
#include <abench/plugin.h>

const abench_plugin* abench_plugin_v1(void) {
  static const abench_plugin plugin = {ABENCH_PLUGIN_ABI_VERSION + 1, "wrong_abi", "0", NULL, NULL};
  return &plugin;
}
