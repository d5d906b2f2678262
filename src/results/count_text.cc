#include "src/results/count_text.h"

#include <fmt/format.h>

namespace abench {

std::string per_buffer_text(std::uint64_t total, std::uint64_t buffers, int decimals) {
  if (buffers == 0) return "0";
  if (total % buffers == 0) return std::to_string(total / buffers);
  return fmt::format("{:.{}f}", static_cast<double>(total) / static_cast<double>(buffers), decimals);
}

std::string range_text(std::uint64_t lo, std::uint64_t hi) {
  return lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
}

}  // namespace abench
