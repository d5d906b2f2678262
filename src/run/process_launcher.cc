#include "src/run/process_launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "src/run/line_splitter.h"
#include "src/run/process_copy.h"
#include "src/run/worker_spawn.h"
#include "src/util/interrupt.h"
#include "src/util/text.h"

namespace abench {
namespace {

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

// A worker's fresh copy of its executable (LaunchRequest::fresh_copy_dir), removed once the
// worker has ended, however run() is left.
struct CopyRemover {
  std::vector<std::string> made;
  ~CopyRemover() { remove_process_copy(made); }
};

// Keeps the last `limit` bytes of a stream, trimming only when twice that is held.
void keep_tail(std::string& tail, const char* data, std::size_t n, std::size_t limit) {
  tail.append(data, n);
  if (tail.size() > 2 * limit) tail.erase(0, tail.size() - limit);
}

using Clock = std::chrono::steady_clock;

std::chrono::milliseconds allowance_for(double seconds) {
  return std::chrono::milliseconds(static_cast<long long>(std::min(seconds, 1e9) * 1000));
}

// One running worker watched until it has closed its protocol channel and exited (or closed
// stdout and stderr too; a plugin's child that keeps stdout open cannot hold abench past
// that): its stdin fed, its lines handed on, its output's tails kept, its allowance kept.
class WorkerWatch {
 public:
  WorkerWatch(const LaunchRequest& request, WorkerPipes& pipes, pid_t pid, const ProtocolLineHandler& on_line,
              LaunchOutcome& outcome)
      : request_(request),
        pipes_(pipes),
        pid_(pid),
        on_line_(on_line),
        outcome_(outcome),
        allowance_s_(request.timeout_s),
        deadline_(Clock::now() + allowance_for(allowance_s_)) {
    // The request can exceed the pipe buffer, so stdin is fed in the same poll loop that
    // drains the other three; a worker that stops reading cannot deadlock us.
    fcntl(pipes_.in.write, F_SETFL, O_NONBLOCK);
    if (request.stdin_text.empty()) close_fd(pipes_.in.write);
  }

  // Returns once the worker is gone, or has been killed.
  void watch() {
    while (pipes_.protocol.read >= 0 || (!reaped_ && (pipes_.out.read >= 0 || pipes_.err.read >= 0))) {
      if (pipes_.protocol.read < 0 && !reaped_) reaped_ = waitpid(pid_, &status_, WNOHANG) == pid_;
      if (reaped_ || stopped_by_abench()) break;
      pollfd fds[4] = {{pipes_.protocol.read, POLLIN, 0},
                       {pipes_.out.read, POLLIN, 0},
                       {pipes_.err.read, POLLIN, 0},
                       {pipes_.in.write, POLLOUT, 0}};
      const int ready = poll(fds, 4, static_cast<int>(std::min<long long>(left().count(), 200)));
      if (ready < 0 && errno != EINTR) break;
      if (ready <= 0) continue;
      const auto has = [&](int i, short events) { return (fds[i].revents & events) != 0; };
      if (has(3, POLLOUT | POLLERR | POLLHUP)) feed_stdin();
      if (has(0, POLLIN | POLLHUP | POLLERR) && !read_protocol()) break;
      if (has(1, POLLIN | POLLHUP | POLLERR)) read_output(pipes_.out.read, stdout_text_);
      if (has(2, POLLIN | POLLHUP | POLLERR)) read_output(pipes_.err.read, stderr_text_);
    }
  }

  // Reaps the worker and fills the outcome.
  void finish() {
    if (!outcome_.timed_out && outcome_.interrupted_by == 0 && !outcome_.cancelled && outcome_.protocol_error.empty())
      lines_.flush(on_line_);
    close_fd(pipes_.in.write);
    close_fd(pipes_.protocol.read);
    while (!reaped_ && waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    // What is left in the pipes once the worker is gone (non-blocking: a grandchild may
    // still hold them open).
    for (auto [fd, text] : {std::pair{&pipes_.out.read, &stdout_text_}, std::pair{&pipes_.err.read, &stderr_text_}}) {
      if (*fd < 0) continue;
      fcntl(*fd, F_SETFL, O_NONBLOCK);
      char chunk[65536];
      for (ssize_t n; (n = read(*fd, chunk, sizeof chunk)) > 0;)
        keep_tail(*text, chunk, static_cast<std::size_t>(n), request_.output_tail_bytes);
      close_fd(*fd);
    }
    if (WIFEXITED(status_)) outcome_.exit_code = WEXITSTATUS(status_);
    if (WIFSIGNALED(status_)) outcome_.signal = WTERMSIG(status_);
    outcome_.stdout_tail = printable_tail(stdout_text_, request_.output_tail_bytes);
    outcome_.stderr_tail = printable_tail(stderr_text_, request_.output_tail_bytes);
  }

 private:
  // The time left of the worker's allowance; a paced worker's counts from when abench last
  // told it to go (LaunchRequest::clock_start).
  std::chrono::milliseconds left() {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
    if (left.count() <= 0 && request_.clock_start) {
      const auto told = request_.clock_start();
      if (told > deadline_ - allowance_for(allowance_s_)) deadline_ = told + allowance_for(allowance_s_);
      left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
    }
    return left;
  }

  // Interrupted, cancelled or past its allowance: the worker is killed.
  bool stopped_by_abench() {
    if (const int signal_number = interrupt_signal(); signal_number != 0) {
      outcome_.interrupted_by = signal_number;
    } else if (request_.cancel != nullptr && request_.cancel->load()) {
      outcome_.cancelled = true;
    } else if (left().count() <= 0) {
      outcome_.timed_out = true;
      outcome_.timeout_s = allowance_s_;
    } else {
      return false;
    }
    kill_worker(pid_);
    return true;
  }

  void feed_stdin() {
    const ssize_t n =
        write(pipes_.in.write, request_.stdin_text.data() + stdin_sent_, request_.stdin_text.size() - stdin_sent_);
    if (n > 0) stdin_sent_ += static_cast<std::size_t>(n);
    if (n < 0 && errno != EAGAIN) stdin_sent_ = request_.stdin_text.size();  // worker closed it
    if (stdin_sent_ == request_.stdin_text.size()) close_fd(pipes_.in.write);
  }

  // False when a line broke the protocol (the worker is killed).
  bool read_protocol() {
    char chunk[65536];
    const ssize_t n = read(pipes_.protocol.read, chunk, sizeof chunk);
    if (n <= 0) {
      close_fd(pipes_.protocol.read);
      return true;
    }
    if (!lines_.feed(chunk, static_cast<std::size_t>(n), on_line_, allowance_s_)) {
      outcome_.protocol_error =
          fmt::format("a protocol line longer than {} bytes (the limit) without a newline", kMaxProtocolLineBytes);
      kill_worker(pid_);
      return false;
    }
    deadline_ = Clock::now() + allowance_for(allowance_s_);
    return true;
  }

  void read_output(int& fd, std::string& text) {
    char chunk[65536];
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n <= 0)
      close_fd(fd);
    else
      keep_tail(text, chunk, static_cast<std::size_t>(n), request_.output_tail_bytes);
  }

  const LaunchRequest& request_;
  WorkerPipes& pipes_;
  const pid_t pid_;
  const ProtocolLineHandler& on_line_;
  LaunchOutcome& outcome_;
  double allowance_s_;
  Clock::time_point deadline_;
  std::size_t stdin_sent_ = 0;
  std::string stdout_text_, stderr_text_;
  LineSplitter lines_;
  int status_ = 0;
  bool reaped_ = false;
};

}  // namespace

LaunchOutcome ProcessLauncher::run(const LaunchRequest& request, const ProtocolLineHandler& on_line) {
  LaunchOutcome outcome;
  WorkerPipes pipes;
  if (!pipes.made()) {
    outcome.started = false;
    outcome.start_error = std::string("pipe: ") + std::strerror(errno);
    return outcome;
  }
  // A worker may exit before reading its request (it refused to run): writing to its
  // stdin then raises SIGPIPE, which must be an EPIPE here, not the death of abench.
  signal(SIGPIPE, SIG_IGN);
  CopyRemover copy;  // declared before the guard: the worker is reaped before its file goes
  const pid_t pid = spawn_worker(request, pipes, &outcome.start_error, &copy.made);
  if (pid < 0) {
    outcome.started = false;
    return outcome;
  }
  ChildGuard child{pid};
  WorkerWatch watch(request, pipes, pid, on_line, outcome);
  if (request.on_spawned) request.on_spawned(pid);
  watch.watch();
  watch.finish();
  child.reaped = true;
  return outcome;
}

}  // namespace abench
