// The process's own peak resident set size, for the counting runs' figures.
#pragma once

#include <cstdint>

namespace abench {

// VmHWM of /proc/self/status, in bytes: this process image's peak since it started. Not
// getrusage's ru_maxrss: at exec the kernel keeps the larger of the new image's peak and
// the peak of the process that spawned it, so a worker started by a 200 MiB abench
// reported 200 MiB for a 64-byte cell. 0 where the file or the field is missing.
std::uint64_t own_peak_rss_bytes();

}  // namespace abench
