// abench started in the background, for the tests that stop it (SIGINT, SIGTERM) while it
// measures: its stdout and stderr into files in a directory of the test's.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "tests/built_paths.h"

extern char** environ;

namespace abench::testing {

struct Background {
  pid_t pid = -1;
  std::filesystem::path out, err;
  Background(const std::vector<std::string>& args, const std::filesystem::path& dir)
      : out(dir / "stdout"), err(dir / "stderr") {
    std::vector<std::string> argv_strings{built::kAbench};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    // Its temporaries (the workers' fresh copies) go in the test's directory, which the test
    // removes: an abench the test SIGKILLs cannot remove its own.
    std::vector<std::string> env_strings{"TMPDIR=" + dir.string()};
    for (char** e = environ; *e != nullptr; ++e)
      if (std::string_view(*e).rfind("TMPDIR=", 0) != 0) env_strings.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid, built::kAbench, &actions, nullptr, argv.data(), envp.data()), 0);
    posix_spawn_file_actions_destroy(&actions);
  }
  int wait_exit() {
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  // A test that failed before it waited leaves no abench running behind it.
  ~Background() {
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;
};

}  // namespace abench::testing
