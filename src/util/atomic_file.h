// Writing into an output directory that someone else may have prepared: no write follows
// a link planted there (docs/security.md).
// - A file appears whole or not at all: a temporary of a fresh, unguessable name in the
//   same directory (created with O_CREAT|O_EXCL, so never through a link), flushed, then
//   renamed over the target (which replaces a link at the target, never writes through it).
// - A subdirectory abench writes into must be a real directory: a link there is refused.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string_view>

namespace abench {

// Throws EnvironmentError naming the path and the system error.
void write_file_atomically(const std::filesystem::path& path, std::string_view content, mode_t mode = 0644);

// Creates `dir` (one level) if it is not there; throws UsageError when it is a symbolic link
// or not a directory, EnvironmentError when it cannot be made.
void make_output_subdirectory(const std::filesystem::path& dir);

// A fresh directory of an unguessable name under `parent` (mkdtemp: mode 0700), for a
// helper's own files (gnuplot's outputs); remove it with std::filesystem::remove_all.
std::filesystem::path make_private_directory(const std::filesystem::path& parent, std::string_view prefix);

}  // namespace abench
