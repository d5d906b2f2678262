#include "src/run/process_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "src/util/interrupt.h"
#include "src/util/text.h"

extern char** environ;

namespace abench {
namespace {

// Set by keep_orchestrator_off_cpu: the mask workers must start with.
bool g_restricted = false;
cpu_set_t g_full_mask;

// Children inherit the CPU mask of the moment they are created: all abench may use, or the
// request's start_cpus, for as long as this lives (the calling thread's own mask after).
class MaskForChild {
 public:
  explicit MaskForChild(const std::vector<int>& cpus) {
    if (cpus.empty() && !g_restricted) return;
    cpu_set_t mask = g_full_mask;
    if (!cpus.empty()) {
      CPU_ZERO(&mask);
      for (int cpu : cpus)
        if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &mask);
    }
    changed_ = sched_getaffinity(0, sizeof before_, &before_) == 0 && sched_setaffinity(0, sizeof mask, &mask) == 0;
  }
  ~MaskForChild() {
    if (changed_) sched_setaffinity(0, sizeof before_, &before_);
  }
  MaskForChild(const MaskForChild&) = delete;
  MaskForChild& operator=(const MaskForChild&) = delete;

 private:
  bool changed_ = false;
  cpu_set_t before_{};
};

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Both ends close themselves, whichever way run() is left.
struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) == 0) {
      read = fds[0];
      write = fds[1];
    }
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe() {
    close_fd(read);
    close_fd(write);
  }
};

// The worker and everything it started (its process group). The worker itself too: a
// child that never got as far as its own group (one stuck between fork and exec, as under
// qemu-user now and then) is not in it, and the waitpid after a kill of the group alone
// waited for it for ever.
void kill_worker(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

// A started worker is stopped and reaped if run() is left by an exception (a line handler
// that could not write the results): it must not run on unwatched.
struct ChildGuard {
  pid_t pid = -1;
  bool reaped = false;
  ~ChildGuard() {
    if (pid <= 0 || reaped) return;
    kill_worker(pid);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
};

// Keeps the last `limit` bytes of a stream, trimming only when twice that is held.
void keep_tail(std::string& tail, const char* data, std::size_t n, std::size_t limit) {
  tail.append(data, n);
  if (tail.size() > 2 * limit) tail.erase(0, tail.size() - limit);
}

// abench's environment for a child: without what the request sets (getenv finds the first
// of two entries, so an inherited MALLOC_CONF would beat the variant's) or what the
// launcher sets itself.
bool overridden(std::string_view entry, const LaunchRequest& request) {
  const std::string_view key = entry.substr(0, entry.find('='));
  if (key == "ABENCH_PROTOCOL_FD" || key == "ABENCH_PARENT_PID" || key == "ABENCH_PACE_FD") return true;
  return std::any_of(request.environment.begin(), request.environment.end(),
                     [&](const auto& kv) { return kv.first == key; });
}

// Splits protocol lines in linear time: each byte is scanned for a newline once, and the
// consumed prefix is dropped once per read, not once per line.
class LineSplitter {
 public:
  // Returns false when a line grows past kMaxProtocolLineBytes without its newline.
  bool feed(const char* data, std::size_t n, const ProtocolLineHandler& on_line, double& allowance_s) {
    buffer_.append(data, n);
    std::size_t line_start = 0;
    for (std::size_t nl; (nl = buffer_.find('\n', scanned_)) != std::string::npos;) {
      const double next = on_line(std::string_view(buffer_).substr(line_start, nl - line_start));
      if (next > 0) allowance_s = next;
      line_start = scanned_ = nl + 1;
    }
    buffer_.erase(0, line_start);
    scanned_ = buffer_.size();
    return buffer_.size() <= kMaxProtocolLineBytes;
  }
  // A last line without its newline.
  void flush(const ProtocolLineHandler& on_line) {
    if (!buffer_.empty()) on_line(buffer_);
    buffer_.clear();
  }

 private:
  std::string buffer_;
  std::size_t scanned_ = 0;
};

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
    g_restricted = true;
    allowed = others;
  }
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  return cpus;
}

LaunchOutcome ProcessLauncher::run(const LaunchRequest& request, const ProtocolLineHandler& on_line) {
  LaunchOutcome outcome;
  Pipe in, out, err, protocol;
  if (in.read < 0 || out.read < 0 || err.read < 0 || protocol.read < 0) {
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
  sigaddset(&default_signals, SIGINT);
  sigaddset(&default_signals, SIGTERM);
  sigaddset(&default_signals, SIGXFSZ);
  posix_spawnattr_setsigdefault(&attributes, &default_signals);
  // Its own process group: a terminal's Ctrl-C reaches abench alone, which stops the
  // worker and everything it started, and records what was finished.
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in.read, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
  // The child's descriptors 3 and 4 come from copies above 9, so that no dup2 reads a
  // descriptor an earlier one replaced (pipes are numbered from 3 up).
  const int protocol_high = fcntl(protocol.write, F_DUPFD_CLOEXEC, 10);
  const int pace_high = request.pace_fd >= 0 ? fcntl(request.pace_fd, F_DUPFD_CLOEXEC, 10) : -1;
  if (protocol_high < 0 || (request.pace_fd >= 0 && pace_high < 0)) {
    outcome.started = false;
    outcome.start_error = std::string("fcntl(F_DUPFD_CLOEXEC): ") + std::strerror(errno);
    if (protocol_high >= 0) close(protocol_high);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return outcome;
  }
  posix_spawn_file_actions_adddup2(&actions, protocol_high, kProtocolFd);
  if (pace_high >= 0) posix_spawn_file_actions_adddup2(&actions, pace_high, kPaceFd);

  std::vector<std::string> args{request.executable};
  args.insert(args.end(), request.arguments.begin(), request.arguments.end());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e)
    if (!overridden(*e, request)) env_strings.emplace_back(*e);
  for (const auto& [key, value] : request.environment) env_strings.push_back(key + "=" + value);
  env_strings.push_back(fmt::format("ABENCH_PROTOCOL_FD={}", kProtocolFd));
  // Fixed width: the environment's size moves the worker's stack, and instruction counts
  // follow the stack's alignment (a pid of one more digit changed them by up to 0.2%).
  env_strings.push_back(fmt::format("ABENCH_PARENT_PID={:010}", static_cast<long>(getpid())));
  if (pace_high >= 0) env_strings.push_back(fmt::format("ABENCH_PACE_FD={}", kPaceFd));
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  int spawn_error = 0;
  // posix_spawn reports a failed exec only where it can use vfork; elsewhere (qemu-user
  // turns vfork into fork) the child exits 127 with the reason lost. Ask first.
  if (access(request.executable.c_str(), X_OK) != 0) spawn_error = errno;
  if (spawn_error == 0) {
    // One spawn at a time (a paced pair's two sides start at once): under qemu-user, where a
    // spawn is a fork of the whole emulator, a child now and then deadlocks before its exec;
    // one at a time it did in 4 of 166 gate runs of 96 workers, against 1 of 12 (docs/arm.md).
    static std::mutex one_spawn_at_a_time;
    const std::lock_guard spawning(one_spawn_at_a_time);
    const MaskForChild mask(request.start_cpus);
    spawn_error = posix_spawn(&pid, request.executable.c_str(), &actions, &attributes, argv.data(), envp.data());
  }
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(protocol_high);
  if (pace_high >= 0) close(pace_high);
  close_fd(in.read);
  close_fd(out.write);
  close_fd(err.write);
  close_fd(protocol.write);
  if (spawn_error != 0) {
    close_fd(in.write);
    close_fd(out.read);
    close_fd(err.read);
    close_fd(protocol.read);
    outcome.started = false;
    outcome.start_error = fmt::format("{}: {}", request.executable, std::strerror(spawn_error));
    return outcome;
  }

  // The request can exceed the pipe buffer, so stdin is fed in the same poll loop that
  // drains the other three; a worker that stops reading cannot deadlock us.
  fcntl(in.write, F_SETFL, O_NONBLOCK);
  std::size_t stdin_sent = 0;
  std::string stdout_text, stderr_text;
  LineSplitter lines;
  double allowance_s = request.timeout_s;
  auto allowance_for = [](double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(std::min(seconds, 1e9) * 1000));
  };
  auto deadline_after = [&](double seconds) { return std::chrono::steady_clock::now() + allowance_for(seconds); };
  auto deadline = deadline_after(allowance_s);
  if (request.stdin_text.empty()) close_fd(in.write);
  ChildGuard child{pid};
  auto stop = [&] { kill_worker(pid); };
  if (request.on_spawned) request.on_spawned(pid);

  // Until the worker has closed its protocol channel and exited (or closed stdout and
  // stderr too); a plugin's child that keeps stdout open cannot hold abench past that.
  int status = 0;
  bool reaped = false;
  while (protocol.read >= 0 || (!reaped && (out.read >= 0 || err.read >= 0))) {
    if (protocol.read < 0 && !reaped) reaped = waitpid(pid, &status, WNOHANG) == pid;
    if (reaped) break;
    if (const int signal_number = interrupt_signal(); signal_number != 0) {
      outcome.interrupted_by = signal_number;
      stop();
      break;
    }
    if (request.cancel != nullptr && request.cancel->load()) {
      outcome.cancelled = true;
      stop();
      break;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 && request.clock_start) {
      const auto told = request.clock_start();
      if (told > deadline - allowance_for(allowance_s)) deadline = told + allowance_for(allowance_s);
      left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    }
    if (left.count() <= 0) {
      outcome.timed_out = true;
      outcome.timeout_s = allowance_s;
      stop();
      break;
    }
    pollfd fds[4] = {{protocol.read, POLLIN, 0}, {out.read, POLLIN, 0}, {err.read, POLLIN, 0}, {in.write, POLLOUT, 0}};
    const int ready = poll(fds, 4, static_cast<int>(std::min<long long>(left.count(), 200)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (fds[3].revents & (POLLOUT | POLLERR | POLLHUP)) {
      const ssize_t n = write(in.write, request.stdin_text.data() + stdin_sent,
                              request.stdin_text.size() - stdin_sent);
      if (n > 0) stdin_sent += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN) stdin_sent = request.stdin_text.size();  // worker closed it
      if (stdin_sent == request.stdin_text.size()) close_fd(in.write);
    }
    char chunk[65536];
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(protocol.read, chunk, sizeof chunk);
      if (n <= 0) {
        close_fd(protocol.read);
      } else {
        if (!lines.feed(chunk, static_cast<std::size_t>(n), on_line, allowance_s)) {
          outcome.protocol_error =
              fmt::format("a protocol line longer than {} bytes (the limit) without a newline", kMaxProtocolLineBytes);
          stop();
          break;
        }
        deadline = deadline_after(allowance_s);
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(out.read, chunk, sizeof chunk);
      if (n <= 0)
        close_fd(out.read);
      else
        keep_tail(stdout_text, chunk, static_cast<std::size_t>(n), request.output_tail_bytes);
    }
    if (fds[2].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = read(err.read, chunk, sizeof chunk);
      if (n <= 0)
        close_fd(err.read);
      else
        keep_tail(stderr_text, chunk, static_cast<std::size_t>(n), request.output_tail_bytes);
    }
  }
  if (!outcome.timed_out && outcome.interrupted_by == 0 && !outcome.cancelled && outcome.protocol_error.empty()) lines.flush(on_line);
  close_fd(in.write);
  close_fd(protocol.read);

  while (!reaped && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  child.reaped = true;
  // What is left in the pipes once the worker is gone (non-blocking: a grandchild may
  // still hold them open).
  for (auto [fd, text] : {std::pair{&out.read, &stdout_text}, std::pair{&err.read, &stderr_text}}) {
    if (*fd < 0) continue;
    fcntl(*fd, F_SETFL, O_NONBLOCK);
    char chunk[65536];
    for (ssize_t n; (n = read(*fd, chunk, sizeof chunk)) > 0;) keep_tail(*text, chunk, static_cast<std::size_t>(n), request.output_tail_bytes);
    close_fd(*fd);
  }
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  outcome.stdout_tail = printable_tail(stdout_text, request.output_tail_bytes);
  outcome.stderr_tail = printable_tail(stderr_text, request.output_tail_bytes);
  return outcome;
}

}  // namespace abench
