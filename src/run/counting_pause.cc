#include "src/run/counting_pause.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>

namespace abench {
namespace {

// By system call: glibc 2.36's <sys/pidfd.h> declares its wrappers without C linkage.
int open_pidfd(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

}  // namespace

CountingPause::~CountingPause() {
  std::lock_guard lock(mutex_);
  if (pidfd_ < 0) return;
  if (stopped_) signal_counting(SIGCONT);  // never leave a worker stopped behind
  close(pidfd_);
}

bool CountingPause::supported() {
  const int fd = open_pidfd(getpid());
  if (fd < 0) return false;
  close(fd);
  return true;
}

void CountingPause::signal_counting(int signal_number) {
  // ESRCH: it has exited; the lane learns so from its launcher.
  if (pidfd_ >= 0) syscall(SYS_pidfd_send_signal, pidfd_, signal_number, nullptr, 0);
}

void CountingPause::set_sampling(std::size_t worker, bool sampling) {
  std::lock_guard lock(mutex_);
  const bool was_quiet = sampling_.empty();
  if (sampling)
    sampling_.insert(worker);
  else
    sampling_.erase(worker);
  if (was_quiet && !sampling_.empty() && pidfd_ >= 0 && reported_ && !stopped_) {
    signal_counting(SIGSTOP);
    stopped_ = true;
    resumed_ = Clock::now();  // from here, clock_start says "now"
  } else if (!was_quiet && sampling_.empty()) {
    if (stopped_) {
      signal_counting(SIGCONT);
      stopped_ = false;
      stopped_for_ += Clock::now() - resumed_;
      resumed_ = Clock::now();
    }
    quiet_.notify_all();
  }
}

void CountingPause::wait_until_quiet(const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  quiet_.wait(lock, stop, [this] { return sampling_.empty(); });
}

void CountingPause::counting_started(pid_t pid) {
  const int fd = open_pidfd(pid);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "pidfd_open of the counting worker");
  std::lock_guard lock(mutex_);
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = fd;
  stopped_for_ = {};
  resumed_ = Clock::now();
  stopped_ = reported_ = false;
}

void CountingPause::counting_reported() {
  std::lock_guard lock(mutex_);
  if (reported_ || pidfd_ < 0) return;
  reported_ = true;
  if (!sampling_.empty()) {
    signal_counting(SIGSTOP);
    stopped_ = true;
    resumed_ = Clock::now();
  }
}

double CountingPause::counting_ended() {
  std::lock_guard lock(mutex_);
  if (stopped_) stopped_for_ += Clock::now() - resumed_;  // it ended while stopped (killed)
  stopped_ = reported_ = false;
  if (pidfd_ >= 0) close(pidfd_);
  pidfd_ = -1;
  return std::chrono::duration<double>(stopped_for_).count();
}

CountingPause::Clock::time_point CountingPause::clock_start() const {
  std::lock_guard lock(mutex_);
  return stopped_ ? Clock::now() : resumed_;
}

}  // namespace abench
