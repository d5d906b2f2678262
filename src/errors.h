// The three kinds of failure, kept apart (docs/cli.md lists the exit codes):
//   UsageError  the user's mistake: a message saying what is allowed, exit 2, nothing written
//   a failed measurement (worker crash, broken allocator contract): reported per cell, exit 3
//   a bug: an uncaught exception, which main reports with its origin.
#pragma once

#include <stdexcept>

namespace abench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitMeasurementFailed = 3;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace abench
