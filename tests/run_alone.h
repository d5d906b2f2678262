// End-to-end tests run side by side (ctest -j), except those whose claim rests on time: a
// verdict on a real slowdown, or on none. Those run alone (RUN_SERIAL), because timed workers
// of two tests share the pinned CPU: side by side, a gate once saw its slowed side 52% faster.
// Such a test starts with ABENCH_RUNS_ALONE(), which fails it unless tests/CMakeLists.txt lists
// it in abench_run_alone, so a timed test cannot end up side by side with another unnoticed.
#pragma once

#include <fnmatch.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace abench::testing {

// Whether the running test's full name matches one of the ':'-separated patterns of
// abench_run_alone (gtest's filter syntax, whose '*' and '?' fnmatch reads alike).
inline bool listed_to_run_alone() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = std::string(info->test_suite_name()) + "." + info->name();
  std::istringstream patterns(ABENCH_RUN_ALONE_FILTER);
  for (std::string pattern; std::getline(patterns, pattern, ':');)
    if (fnmatch(pattern.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

}  // namespace abench::testing

#define ABENCH_RUNS_ALONE()                                                           \
  ASSERT_TRUE(::abench::testing::listed_to_run_alone())                               \
      << "a test whose claim rests on time runs alone: list it in abench_run_alone, " \
         "tests/CMakeLists.txt"
