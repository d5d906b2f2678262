// Starting a worker process: posix_spawn with pipes for its stdin, stdout, stderr and
// protocol descriptor (and the pace channel's read end), abench's environment less what the
// request and the launcher set, its own process group, and the CPU mask and scheduling class
// the request asks for.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "src/run/launcher.h"

namespace abench {

void close_fd(int& fd);

// Both ends close themselves, however the launch ends.
struct Pipe {
  int read = -1, write = -1;
  Pipe();
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  ~Pipe();
};

struct WorkerPipes {
  Pipe in, out, err, protocol;
  bool made() const { return in.read >= 0 && out.read >= 0 && err.read >= 0 && protocol.read >= 0; }
};

// Spawns request.executable (never through a shell) and closes the child's ends of the
// pipes here. Returns its pid, or -1 with *error saying why it did not start. With
// request.fresh_copy_dir, *copies are the copies it runs from, for the caller to remove once
// it ends (remove_process_copy).
pid_t spawn_worker(const LaunchRequest& request, WorkerPipes& pipes, std::string* error,
                   std::vector<std::string>* copies);

}  // namespace abench
