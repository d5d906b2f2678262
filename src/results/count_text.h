// How a cell's counts read in tables and files (results.txt, results.csv, compare.md and
// compare.csv): one formatting, so the same count never reads two ways.
#pragma once

#include <cstdint>
#include <string>

namespace abench {

// A per-buffer average: an integer when every buffer made the same requests, else
// `decimals` places ("0" for no buffers).
std::string per_buffer_text(std::uint64_t total, std::uint64_t buffers, int decimals = 2);

// "64" when lo == hi, else "48-64".
std::string range_text(std::uint64_t lo, std::uint64_t hi);

}  // namespace abench
