// What a built buffer must be after its workload: aligned, as long as the workload makes
// it, with room for what it needs, and holding the input (appended chunk by chunk) or
// zeros. verify_cell checks every live buffer of a cell with it before the cell is timed.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "harness/protocol.h"
#include "harness/workloads.h"

namespace abench {

inline std::string describe(const CellSpec& c, std::size_t index) {
  return "buffer " + std::to_string(index) + " of " + std::string(name_of(c.workload)) +
         " size=" + std::to_string(c.size) + " align=" + std::to_string(c.alignment.effective()) + " " +
         std::string(name_of(c.policy));
}

// "" when buffer `index` of the cell is as the workload W must leave it; else what differs.
// `required_align`: max(R, P) for the built-in model, R for a plugin's buffer.
template <Workload W, class Buffer>
std::string check_built(const CellSpec& cell, const std::vector<std::byte>& input, const Buffer& b, std::size_t index,
                        std::size_t required_align) {
  const ExpectedBuffer expected = expected_buffer(W, cell.size);
  if (reinterpret_cast<std::uintptr_t>(b.data()) % required_align != 0)
    return describe(cell, index) + ": data pointer is not " + std::to_string(required_align) + "-aligned";
  if (b.length() != expected.length)
    return describe(cell, index) + ": length " + std::to_string(b.length()) + ", expected " +
           std::to_string(expected.length);
  if (b.capacity() < expected.min_capacity)
    return describe(cell, index) + ": capacity " + std::to_string(b.capacity()) + " below the " +
           std::to_string(expected.min_capacity) + " the workload needs";
  if constexpr (W == Workload::zeroed) {
    // All zeros when the first byte is and every byte equals the next: one memcmp of the
    // buffer against itself, with no buffer of zeros to compare with.
    const std::byte* data = b.data();
    if (b.length() == 0 || (data[0] == std::byte{0} && std::memcmp(data, data + 1, b.length() - 1) == 0)) return "";
    std::size_t at = 0;
    while (data[at] == std::byte{0}) ++at;
    return describe(cell, index) + ": contents differ at byte " + std::to_string(at);
  }
  // Chunk by chunk against the input (each chunk of an appended buffer repeats it) with
  // memcmp, byte by byte only inside a chunk that differs (docs/decisions.md, "Checking a built
  // buffer").
  const std::byte* want = input.data();
  for (std::size_t offset = 0; offset < b.length(); offset += cell.size) {
    const std::size_t n = std::min(cell.size, b.length() - offset);
    if (std::memcmp(b.data() + offset, want, n) == 0) continue;
    std::size_t at = 0;
    while (b.data()[offset + at] == want[at]) ++at;
    return describe(cell, index) + ": contents differ at byte " + std::to_string(offset + at);
  }
  return "";
}

}  // namespace abench
