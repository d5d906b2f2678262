#include "src/util/subprocess.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "src/util/errors.h"

extern char** environ;

namespace abench {

Finished run_program(const std::vector<std::string>& argv, const std::filesystem::path& work_dir,
                     const std::filesystem::path& output_file) {
  // Absolute: the spawn changes into work_dir before it opens the output file.
  const std::string output = std::filesystem::absolute(output_file).string();
  const std::string dir = std::filesystem::absolute(work_dir).string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  std::vector<std::string> copies = argv;
  std::vector<char*> args;
  for (std::string& a : copies) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw EnvironmentError(fmt::format("cannot run {}: {}", argv.at(0), std::strerror(spawned)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  Finished finished;
  finished.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(output);
  std::stringstream printed;
  printed << in.rdbuf();
  finished.output = printed.str();
  return finished;
}

}  // namespace abench
