#include "src/process_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace abench {
namespace {

constexpr std::size_t kStderrTailBytes = 4096;

// Set by keep_orchestrator_off_cpu: the mask workers must start with.
bool g_restricted = false;
cpu_set_t g_full_mask;
cpu_set_t g_own_mask;

// Children inherit the CPU mask of the moment they are created.
struct FullMaskForChild {
  FullMaskForChild() {
    if (g_restricted) sched_setaffinity(0, sizeof g_full_mask, &g_full_mask);
  }
  ~FullMaskForChild() {
    if (g_restricted) sched_setaffinity(0, sizeof g_own_mask, &g_own_mask);
  }
};

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) == 0) {
      read = fds[0];
      write = fds[1];
    }
  }
};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

}  // namespace

void release_orchestrator_cpus() {
  if (!g_restricted) return;
  sched_setaffinity(0, sizeof g_full_mask, &g_full_mask);
  g_restricted = false;
}

std::vector<int> keep_orchestrator_off_cpu(int cpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return cpus;
  cpu_set_t others = allowed;
  if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_CLR(cpu, &others);
  if (cpu >= 0 && CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof others, &others) == 0) {
    g_full_mask = allowed;
    g_own_mask = others;
    g_restricted = true;
    allowed = others;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  return cpus;
}

std::string describe(const LaunchOutcome& o) {
  if (!o.started) return "could not start: " + o.start_error;
  if (o.timed_out) return "killed after exceeding its timeout";
  if (o.signal != 0) return fmt::format("killed by signal {} ({})", o.signal, sigabbrev_np(o.signal) ? sigabbrev_np(o.signal) : "?");
  return fmt::format("exit code {}", o.exit_code);
}

LaunchOutcome ProcessLauncher::run(const LaunchRequest& request,
                                   const std::function<void(std::string_view)>& on_line) {
  LaunchOutcome outcome;
  Pipe in, out, err;
  if (in.read < 0 || out.read < 0 || err.read < 0) {
    outcome.started = false;
    outcome.start_error = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  // A worker may exit before reading its request (it refused to run): writing to its
  // stdin then raises SIGPIPE, which must be an EPIPE here, not the death of abench.
  signal(SIGPIPE, SIG_IGN);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t default_signals;
  sigemptyset(&default_signals);
  sigaddset(&default_signals, SIGPIPE);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);

  std::vector<std::string> args{request.executable};
  args.insert(args.end(), request.arguments.begin(), request.arguments.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) env_strings.emplace_back(*e);
  for (const auto& [key, value] : request.environment) env_strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  FullMaskForChild full_mask;
  const int spawn_error = posix_spawn(&pid, request.executable.c_str(), &actions, &attributes,
                                      argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  if (spawn_error != 0) {
    close_fd(in.write);
    close_fd(out.read);
    close_fd(err.read);
    outcome.started = false;
    outcome.start_error = fmt::format("{}: {}", request.executable, std::strerror(spawn_error));
    return outcome;
  }

  // The request can exceed the pipe buffer, so stdin is fed in the same poll loop that
  // drains stdout and stderr; a worker that stops reading cannot deadlock us.
  fcntl(in.write, F_SETFL, O_NONBLOCK);
  std::size_t stdin_sent = 0;
  std::string line_buffer, stderr_text;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(request.timeout_s * 1000));
  if (request.stdin_text.empty()) close_fd(in.write);

  while (out.read >= 0 || err.read >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    pollfd fds[3] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}, {in.write, POLLOUT, 0}};
    const int ready = poll(fds, 3, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) {
      const ssize_t n = write(in.write, request.stdin_text.data() + stdin_sent,
                              request.stdin_text.size() - stdin_sent);
      if (n > 0) stdin_sent += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN) stdin_sent = request.stdin_text.size();  // worker closed it
      if (stdin_sent == request.stdin_text.size()) close_fd(in.write);
    }
    char chunk[8192];
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(out.read, chunk, sizeof chunk);
      if (n <= 0) {
        close_fd(out.read);
      } else {
        line_buffer.append(chunk, static_cast<std::size_t>(n));
        for (std::size_t nl; (nl = line_buffer.find('\n')) != std::string::npos;) {
          on_line(std::string_view(line_buffer).substr(0, nl));
          line_buffer.erase(0, nl + 1);
        }
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(err.read, chunk, sizeof chunk);
      if (n <= 0) {
        close_fd(err.read);
      } else {
        stderr_text.append(chunk, static_cast<std::size_t>(n));
        if (stderr_text.size() > 2 * kStderrTailBytes)
          stderr_text.erase(0, stderr_text.size() - kStderrTailBytes);
      }
    }
  }
  if (!line_buffer.empty() && !outcome.timed_out) on_line(line_buffer);
  close_fd(in.write);
  close_fd(out.read);
  close_fd(err.read);

  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  if (stderr_text.size() > kStderrTailBytes)
    stderr_text.erase(0, stderr_text.size() - kStderrTailBytes);
  outcome.stderr_tail = std::move(stderr_text);
  return outcome;
}

}  // namespace abench
