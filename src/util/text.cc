#include "src/util/text.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace abench {
namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 (RFC 3629: no overlongs, surrogates, or
// code points above U+10FFFF).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char lead = byte(i);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > s.size()) return 0;
  if (byte(i + 1) < low || byte(i + 1) > high) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return length;
}

}  // namespace

std::optional<std::size_t> first_invalid_utf8(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t length = utf8_sequence_length(bytes, i);
    if (length == 0) return i;
    i += length;
  }
  return std::nullopt;
}

std::string printable(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::size_t i = 0; i < bytes.size();) {
    const unsigned char c = static_cast<unsigned char>(bytes[i]);
    const std::size_t length = utf8_sequence_length(bytes, i);
    if (length == 0 || (c < 0x20 && c != '\n' && c != '\t') || c == 0x7F) {
      out += fmt::format("\\x{:02x}", c);
      ++i;
    } else {
      out.append(bytes.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string printable_tail(std::string_view bytes, std::size_t max_bytes) {
  if (bytes.size() > max_bytes) {
    std::size_t start = bytes.size() - max_bytes;
    // Skip UTF-8 continuation bytes: the cut must not split a character.
    for (int k = 0; k < 3 && start < bytes.size() && (static_cast<unsigned char>(bytes[start]) & 0xC0) == 0x80; ++k)
      ++start;
    bytes.remove_prefix(start);
  }
  return printable(bytes);
}

std::vector<std::string> split_on_commas(std::string_view text) {
  std::vector<std::string> items;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    items.emplace_back(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (comma == std::string_view::npos) return items;
    start = comma + 1;
  }
}

std::string markdown_text(std::string_view text) {
  std::string out;
  for (char c : printable(text)) {
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else {
      if (std::string_view("\\`*_[]<>!#|~&@").find(c) != std::string_view::npos) out += '\\';
      out += c;
    }
  }
  return out;
}

std::string format_duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::optional<double> parse_duration(std::string_view text) {
  if (text.size() < 2 || text.size() > 20) return std::nullopt;
  const char unit = text.back();
  const double scale = unit == 's' ? 1 : unit == 'm' ? 60 : unit == 'h' ? 3600 : 0;
  const std::string_view number = text.substr(0, text.size() - 1);
  if (scale == 0 || number.find_first_not_of("0123456789.") != std::string_view::npos) return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) return std::nullopt;
  return value * scale;
}

}  // namespace abench
