// Reading the JSON files a user hands abench (matrices, gate files, results, noise files),
// with the limits hostile input needs: a regular file of at most 64 MiB (never a directory
// or an endless device), at most 64 levels deep (deeper would recurse in whatever prints it),
// no key twice in one object (the last would win silently), and numbers a double can hold.
// Every refusal is a UsageError naming the file and what was wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace abench {

inline constexpr std::uintmax_t kMaxJsonFileBytes = std::uintmax_t{64} << 20;
inline constexpr int kMaxJsonDepth = 64;

// "line L, column C" of a byte offset in text (1-based), for parse errors.
std::string line_and_column(const std::string& text, std::size_t byte_offset);

// A regular file of at most max_bytes, whole; a link is refused unless follow_links. Throws
// UsageError naming the file and what was wrong.
std::string read_bounded_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes,
                              bool follow_links = true);

// Reads and parses `path`; `what` names it in messages ("the matrix"). Throws UsageError:
// "<path>: cannot read <what>: ...", "<path>: malformed JSON at line L, column C: ...", ...
nlohmann::json read_json_file(const std::string& path, const std::string& what);

// As read_bounded_file and read_json_file, for the file at `relative` below `root`, a directory
// abench was handed (results, a shard): root's own path is followed, as the user named it, but
// every directory below it and the file are opened relative to their parent without following a
// link (openat, O_NOFOLLOW), so no file from outside root is read as if it were root's.
std::string read_bounded_file_below(const std::filesystem::path& root, const std::filesystem::path& relative,
                                    const std::string& what, std::uintmax_t max_bytes);
nlohmann::json read_json_file_below(const std::filesystem::path& root, const std::filesystem::path& relative,
                                    const std::string& what);

}  // namespace abench
