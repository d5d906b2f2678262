#include "harness/peak_rss.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace abench {

std::uint64_t own_peak_rss_bytes() {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (status == nullptr) return 0;
  char line[256];
  std::uint64_t kib = 0;
  while (std::fgets(line, sizeof line, status) != nullptr)
    if (std::strncmp(line, "VmHWM:", 6) == 0) {
      if (std::sscanf(line + 6, "%" SCNu64, &kib) != 1) kib = 0;
      break;
    }
  std::fclose(status);
  return kib * 1024;
}

}  // namespace abench
