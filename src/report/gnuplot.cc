#include "src/report/gnuplot.h"

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
#include "src/util/text.h"

extern char** environ;

namespace abench {

std::string gnuplot_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '`') {  // gnuplot runs `...` as a shell command even inside double quotes
      out += '\'';
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out + "\"";
}

std::string gnuplot_tic_label(std::string_view text) {
  std::string doubled;
  for (const char c : text) doubled += c == '%' ? std::string("%%") : std::string(1, c);
  return gnuplot_string(doubled);
}

void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& relative_work_dir) {
  // Absolute: the spawn changes into it before it opens the messages file under it.
  const std::filesystem::path work_dir = std::filesystem::absolute(relative_work_dir);
  const std::filesystem::path messages = work_dir / (script.filename().string() + ".stderr");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, work_dir.c_str());
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, messages.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::string program = "gnuplot", script_name = script.filename().string();
  char* argv[] = {program.data(), script_name.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    throw EnvironmentError(
        fmt::format("cannot run gnuplot ({}): abench report draws with it; install Debian's "
                    "gnuplot-nox (scripts/setup.sh does)",
                    std::strerror(spawned)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(messages);
  std::stringstream printed;
  printed << in.rdbuf();
  std::filesystem::remove(messages);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
    throw EnvironmentError(
        "cannot run gnuplot: not found; abench report draws with it; install Debian's gnuplot-nox "
        "(scripts/setup.sh does)");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw EnvironmentError(
        fmt::format("gnuplot failed on {}: {}", (work_dir / script).string(), printable_tail(printed.str(), 2000)));
}

}  // namespace abench
