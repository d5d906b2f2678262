// The benchmark clock: CLOCK_MONOTONIC via steady_clock (vDSO, ~20 ns a read on x86-64
// Linux). Batches are timed, never single operations, so its cost is amortized.
#pragma once

#include <chrono>
#include <cstdint>

namespace abench {

inline std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace abench
