#include "src/run/worker_spawn.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/personality.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#include "src/run/cpu_affinity.h"
#include "src/run/launch_frame.h"
#include "src/run/process_copy.h"

extern char** environ;

namespace abench {

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

Pipe::Pipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) == 0) {
    read = fds[0];
    write = fds[1];
  }
}

Pipe::~Pipe() {
  close_fd(read);
  close_fd(write);
}

namespace {

// abench's environment for a child: without what the request sets (getenv finds the first
// of two entries, so an inherited MALLOC_CONF would beat the variant's) or what the
// launcher sets itself.
using Environment = std::vector<std::pair<std::string, std::string>>;

bool overridden(std::string_view entry, const Environment& set) {
  const std::string_view key = entry.substr(0, entry.find('='));
  if (key == "ABENCH_PROTOCOL_FD" || key == "ABENCH_PARENT_PID" || key == "ABENCH_PACE_FD") return true;
  return std::any_of(set.begin(), set.end(), [&](const auto& kv) { return kv.first == key; });
}

std::vector<std::string> environment_for(const Environment& set, bool paced) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e)
    if (!overridden(*e, set)) env.emplace_back(*e);
  for (const auto& [key, value] : set) env.push_back(key + "=" + value);
  env.push_back(fmt::format("ABENCH_PROTOCOL_FD={}", kProtocolFd));
  // Fixed width: the environment's size moves the worker's stack, and instruction counts
  // follow the stack's alignment (a pid of one more digit changed them by up to 0.2%).
  env.push_back(fmt::format("ABENCH_PARENT_PID={:010}", static_cast<long>(getpid())));
  if (paced) env.push_back(fmt::format("ABENCH_PACE_FD={}", kPaceFd));
  return env;
}

// Address randomisation off for the children this thread spawns while it lives (personality
// is a thread's, and a child takes its parent thread's): abench's other children keep it.
class FixedAddresses {
 public:
  explicit FixedAddresses(bool on) : before_(on ? personality(0xffffffff) : -1) {
    if (before_ >= 0) personality(static_cast<unsigned long>(before_) | ADDR_NO_RANDOMIZE);
  }
  ~FixedAddresses() {
    if (before_ >= 0) personality(static_cast<unsigned long>(before_));
  }
  FixedAddresses(const FixedAddresses&) = delete;
  FixedAddresses& operator=(const FixedAddresses&) = delete;

 private:
  int before_;
};

// The C view of strings that outlive it.
std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// What the child gets besides its program: default signal dispositions, its own process
// group, its descriptors. Destroyed (and the descriptors' copies closed) with this.
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attributes);
    posix_spawn_file_actions_init(&actions);
    sigset_t default_signals;
    sigemptyset(&default_signals);
    for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGXFSZ}) sigaddset(&default_signals, s);
    posix_spawnattr_setsigdefault(&attributes, &default_signals);
    // Its own process group: a terminal's Ctrl-C reaches abench alone, which stops the
    // worker and everything it started, and records what was finished.
    posix_spawnattr_setpgroup(&attributes, 0);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close_fd(protocol_high);
    close_fd(pace_high);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  // The child's 0-4. Its descriptors 3 and 4 come from copies above 9, so that no dup2 reads
  // a descriptor an earlier one replaced (pipes are numbered from 3 up). "" or why not.
  std::string give_descriptors(const WorkerPipes& pipes, int pace_fd) {
    posix_spawn_file_actions_adddup2(&actions, pipes.in.read, STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipes.out.write, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pipes.err.write, STDERR_FILENO);
    protocol_high = fcntl(pipes.protocol.write, F_DUPFD_CLOEXEC, 10);
    pace_high = pace_fd >= 0 ? fcntl(pace_fd, F_DUPFD_CLOEXEC, 10) : -1;
    if (protocol_high < 0 || (pace_fd >= 0 && pace_high < 0))
      return std::string("fcntl(F_DUPFD_CLOEXEC): ") + std::strerror(errno);
    posix_spawn_file_actions_adddup2(&actions, protocol_high, kProtocolFd);
    if (pace_high >= 0) posix_spawn_file_actions_adddup2(&actions, pace_high, kPaceFd);
    return "";
  }

  posix_spawnattr_t attributes;
  posix_spawn_file_actions_t actions;
  int protocol_high = -1, pace_high = -1;
};

}  // namespace

pid_t spawn_worker(const LaunchRequest& request, WorkerPipes& pipes, std::string* error,
                   std::vector<std::string>* copies) {
  pid_t pid = -1;
  int spawn_error = 0;
  {
    SpawnSetup setup;
    if (std::string why = setup.give_descriptors(pipes, request.pace_fd); !why.empty()) {
      *error = why;
      return -1;
    }
    // One spawn at a time (a paced pair's two sides start at once): under qemu-user, where
    // a spawn is a fork of the whole emulator, a child now and then deadlocks before its
    // exec, less often one at a time (docs/arm.md). A fresh copy is made inside it too.
    static std::mutex one_spawn_at_a_time;
    const std::lock_guard spawning(one_spawn_at_a_time);
    ProcessCopy copy{request.executable, request.environment, {}};
    if (!request.fresh_copy_dir.empty()) {
      static unsigned long made = 0;
      if (std::string why = make_process_copy(request, made++, copy); !why.empty()) {
        *error = "copying the worker: " + why;
        return -1;
      }
      *copies = copy.made;
    }
    const std::string& executable = copy.executable;
    std::vector<std::string> args{executable};
    args.insert(args.end(), request.arguments.begin(), request.arguments.end());
    std::vector<std::string> env = environment_for(copy.environment, setup.pace_high >= 0);
    if (request.frame.strings_bytes > 0) {
      std::vector<std::string> padding =
          frame_padding(args, env, executable, request.frame, request.stack_shift, error);
      if (padding.empty()) return -1;
      env.insert(env.end(), padding.begin(), padding.end());
    }
    const std::vector<char*> argv = pointers_to(args), envp = pointers_to(env);
    // posix_spawn reports a failed exec only where it can use vfork; elsewhere (qemu-user
    // turns vfork into fork) the child exits 127 with the reason lost. Ask first.
    if (access(executable.c_str(), X_OK) != 0) spawn_error = errno;
    if (spawn_error == 0) {
      const MaskForChild mask(request.start_cpus);
      const FixedAddresses layout(request.fixed_addresses);
      spawn_error = posix_spawn(&pid, executable.c_str(), &setup.actions, &setup.attributes, argv.data(), envp.data());
      // Set from here: glibc's spawn attributes take no SCHED_IDLE, and a thread of abench's
      // put in that class could not leave it again without privilege.
      const sched_param lowest{};
      if (spawn_error == 0 && request.idle_class) sched_setscheduler(pid, SCHED_IDLE, &lowest);
    }
  }
  close_fd(pipes.in.read);
  close_fd(pipes.out.write);
  close_fd(pipes.err.write);
  close_fd(pipes.protocol.write);
  if (spawn_error == 0) return pid;
  *error = fmt::format("{}: {}", request.executable, std::strerror(spawn_error));
  return -1;
}

}  // namespace abench
