// FNV-1a, 64 bits: a stable, portable name for some bytes (a command, a machine, a loop's
// code) across runs, machines and builds. Not a defence against someone choosing the bytes.
#pragma once

#include <cstdint>
#include <string_view>

namespace abench {

inline constexpr std::uint64_t kFnv1aOffsetBasis = 14695981039346656037ull;

constexpr std::uint64_t fnv1a(std::string_view bytes, std::uint64_t hash = kFnv1aOffsetBasis) {
  for (const char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return hash;
}

}  // namespace abench
