// One abench command per output directory (docs/security.md): two commands writing one
// directory at once would leave one's results.json beside the other's report. Each command
// takes an exclusive flock on DIR/.abench.lock for its whole life (released by the kernel
// when it exits, however it exits; its workers do not inherit it) and writes its pid and
// command line there, so that a second command is refused naming the holder.
#pragma once

#include <filesystem>

namespace abench {

// Locks `dir` (which exists) for the rest of this process; a directory this process holds
// already is fine. UsageError naming the holder when another process holds it, or when
// the lock file is a link or not a regular file; EnvironmentError when it cannot be opened.
void hold_output_directory(const std::filesystem::path& dir);

}  // namespace abench
