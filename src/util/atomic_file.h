// Writes a file so that readers see the old content or the new, never half of it:
// a temporary file in the same directory, flushed to disk, then renamed over the target.
#pragma once

#include <filesystem>
#include <string_view>

namespace abench {

// Throws std::runtime_error naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace abench
