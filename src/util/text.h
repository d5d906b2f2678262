// Text helpers. Bytes from outside (a worker's output, a plugin's printf) made safe to put into a
// message or a JSON string: JSON must be valid UTF-8, a terminal must not get control codes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace abench {

// Valid UTF-8 kept; every other byte, and control characters other than newline and tab,
// written as \xNN.
std::string printable(std::string_view bytes);

// The last `max_bytes` of text (about), starting at a character boundary, made printable.
std::string printable_tail(std::string_view bytes, std::size_t max_bytes);

// "a,,b" as {"a", "", "b"}: empty items kept, so a caller can refuse them.
std::vector<std::string> split_on_commas(std::string_view text);

}  // namespace abench
