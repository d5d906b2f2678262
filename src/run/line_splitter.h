// A worker's protocol channel cut into lines as its bytes arrive.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "src/run/launcher.h"

namespace abench {

// Splits protocol lines in linear time: each byte is scanned for a newline once, and the
// consumed prefix is dropped once per read, not once per line.
class LineSplitter {
 public:
  // Returns false when a line grows past kMaxProtocolLineBytes without its newline.
  bool feed(const char* data, std::size_t n, const ProtocolLineHandler& on_line, double& allowance_s) {
    buffer_.append(data, n);
    std::size_t line_start = 0;
    for (std::size_t nl; (nl = buffer_.find('\n', scanned_)) != std::string::npos;) {
      const double next = on_line(std::string_view(buffer_).substr(line_start, nl - line_start));
      if (next > 0) allowance_s = next;
      line_start = scanned_ = nl + 1;
    }
    buffer_.erase(0, line_start);
    scanned_ = buffer_.size();
    return buffer_.size() <= kMaxProtocolLineBytes;
  }
  // A last line without its newline.
  void flush(const ProtocolLineHandler& on_line) {
    if (!buffer_.empty()) on_line(buffer_);
    buffer_.clear();
  }

 private:
  std::string buffer_;
  std::size_t scanned_ = 0;
};

}  // namespace abench
