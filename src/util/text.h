// Text helpers. Bytes from outside (a worker's output, a plugin's printf) made safe to put into a
// message or a JSON string: JSON must be valid UTF-8, a terminal must not get control codes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace abench {

// Valid UTF-8 kept; every other byte, and control characters other than newline and tab,
// written as \xNN.
std::string printable(std::string_view bytes);

// Where the first byte that is not part of valid UTF-8 is; nullopt when all of it is.
std::optional<std::size_t> first_invalid_utf8(std::string_view bytes);

// The last `max_bytes` of text (about), starting at a character boundary, made printable.
std::string printable_tail(std::string_view bytes, std::size_t max_bytes);

// Text from a file, a plugin, an allocator or a label, made inert in Markdown (compare.md,
// gate.md, the step summary): made printable, line breaks and tabs turned into spaces, and
// every character Markdown or GitHub gives a meaning (\ ` * _ [ ] < > ! # | ~ & @) escaped
// with a backslash, so it can neither end a table cell nor open a heading, a link, an image,
// raw HTML or a mention.
std::string markdown_text(std::string_view text);

// "a,,b" as {"a", "", "b"}: empty items kept, so a caller can refuse them.
std::vector<std::string> split_on_commas(std::string_view text);

// Seconds as a clock shows them: "1:05", "1:02:03".
std::string format_duration(double seconds);

// "90s", "10m", "1.5h" in seconds; nullopt for anything else (no unit, a sign, text after).
std::optional<double> parse_duration(std::string_view text);

}  // namespace abench
