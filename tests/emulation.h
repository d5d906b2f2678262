// Tests whose assertion means nothing under an emulator (a timing ratio, a CPU pinned to,
// callgrind's counts): skipped there, with the reason, which scripts/test --arch lists.
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "src/machine/virtualization.h"

namespace abench::testing {

inline const std::optional<std::string>& emulator_here() {
  static const std::optional<std::string> emulator = emulator_of_this_process();
  return emulator;
}

}  // namespace abench::testing

#define ABENCH_SKIP_UNDER_EMULATION(why)                                  \
  do {                                                                    \
    if (const auto& emulator = ::abench::testing::emulator_here())        \
      GTEST_SKIP() << "under emulation (" << *emulator << "): " << (why); \
  } while (0)
