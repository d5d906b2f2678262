// The kinds of failure, kept apart (docs/cli.md lists the exit codes):
//   UsageError        the user's mistake: a message saying what is allowed, exit 2, nothing written
//   a failed measurement (worker crash, broken allocator contract): reported per cell, exit 3
//   EnvironmentError  the machine failed abench (I/O, disk full, permissions, a missing tool):
//                     the path and errno's text, exit 4
//   a bug: any other exception, which main reports as one, exit 70.
#pragma once

#include <stdexcept>
#include <string>

namespace abench {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitMeasurementFailed = 3;
inline constexpr int kExitEnvironment = 4;
inline constexpr int kExitBug = 70;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct EnvironmentError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// abench was asked to stop (SIGINT, SIGTERM) and has written what it finished; exit
// 128 + the signal, as a shell reports a process the signal ended.
struct Interrupted : std::runtime_error {
  Interrupted(int signal_number, const std::string& what) : std::runtime_error(what), signal(signal_number) {}
  int signal;
};

}  // namespace abench
