// tools/timed_loop_identity.cc on objects of one small loop (tests/tools/identity_subject.c)
// compiled several ways: debug information and the source's path leave the identity alone;
// other instructions, or the same instructions calling another function, change it.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>

#include "tests/temp_dir.h"

namespace abench {
namespace {

struct Named {
  int exit_code = -1;
  std::string identity;  // 16 hex digits, from the generated source
};

Named identity_of(const std::string& object) {
  testing::TempDir dir;
  const auto source = dir.path() / "generated" / "timed_loop.cc";
  const std::string command = std::string(TIMED_LOOP_IDENTITY_TOOL) + " '" + object + "' '" + source.string() + "' 2>" +
                              (dir.path() / "err").string();
  const int status = std::system(command.c_str());
  Named named;
  named.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (named.exit_code != 0) return named;
  std::smatch m;
  std::ifstream in(source);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const std::regex defined(R"re(return "([0-9a-f]{16})";)re");
  if (std::regex_search(text, m, defined)) named.identity = m[1];
  return named;
}

TEST(TimedLoopIdentity, NamesTheCodeNotItsDebugInformationOrPath) {
  const Named plain = identity_of(SUBJECT_PLAIN);
  ASSERT_EQ(plain.exit_code, 0);
  ASSERT_EQ(plain.identity.size(), 16u);
  EXPECT_EQ(identity_of(SUBJECT_PLAIN).identity, plain.identity) << "the same object, the same name";
  EXPECT_EQ(identity_of(SUBJECT_DEBUG).identity, plain.identity) << "-g adds sections, not code";
  EXPECT_EQ(identity_of(SUBJECT_MOVED).identity, plain.identity) << "another source path, with -g";
  EXPECT_NE(identity_of(SUBJECT_MORE_WORK).identity, plain.identity) << "more instructions";
  EXPECT_NE(identity_of(SUBJECT_CALLS_ELSEWHERE).identity, plain.identity) << "another function called";
}

TEST(TimedLoopIdentity, WhatIsNoObjectFailsTheBuildWithItsReason) {
  testing::TempDir dir;
  const auto text = dir.path() / "not-an-object.o";
  std::ofstream(text) << "this is not an ELF file, nor long enough to hold a header of one";
  EXPECT_EQ(identity_of(text.string()).exit_code, 1);
  EXPECT_EQ(identity_of((dir.path() / "missing.o").string()).exit_code, 1);
}

}  // namespace
}  // namespace abench
