// How the orchestrator starts a worker process. An interface so that the orchestration
// (rounds, order, failure handling) is tested with a fake, without timing anything.
//
// A worker reports on a descriptor of its own (kProtocolFd, named in ABENCH_PROTOCOL_FD),
// never on stdout: what a plugin or an allocator prints cannot join, forge or split the
// protocol's lines. Its stdout and stderr are kept (their tails) as its output.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/results/launch_outcome.h"

namespace abench {

inline constexpr int kProtocolFd = 3;
// A paced worker reads abench's word here (ABENCH_PACE_FD; docs/protocol.md, "Paced pairs").
inline constexpr int kPaceFd = 4;
// A protocol line longer than this is not protocol: the worker is stopped.
inline constexpr std::size_t kMaxProtocolLineBytes = 1 << 20;

// The room a worker's first stack gives the strings the kernel copies there (the path it was
// started by, its arguments, its environment) and their pointers: the environment is padded to
// fill it exactly, so that the stack starts at the same place whatever the path's length and
// the environment's size (src/run/launch_frame.h). 0: not padded.
struct FrameSize {
  std::size_t strings_bytes = 0;
  std::size_t entries = 0;
};

struct LaunchRequest {
  std::string executable;  // run directly, no shell
  std::vector<std::string> arguments;
  std::vector<std::pair<std::string, std::string>> environment;  // added to abench's own
  std::string stdin_text;
  // Seconds the worker may take to send its first protocol line; each line's handler
  // then says how long the next may take. Past it, the worker is hung and killed.
  double timeout_s = 600;
  std::size_t output_tail_bytes = 4096;  // of stdout and of stderr, kept in the outcome
  // >= 0: the read end of a pipe the worker gets as kPaceFd; the caller keeps it and writes.
  int pace_fd = -1;
  // A paced worker is not on the clock while it waits for abench's word: when its allowance
  // runs out, it is hung only if it is past its allowance counted from this (when abench
  // last told it to go; now, while it waits) as well. Unset: from its last line alone.
  std::function<std::chrono::steady_clock::time_point()> clock_start = {};
  // Non-empty: the CPUs the worker starts on (its affinity until it pins itself), not all
  // abench may use: a paced worker that starts up while the pair before it is measured,
  // beside the measured CPU, and moves there at its first word.
  std::vector<int> start_cpus = {};
  // Set by the caller: the worker is stopped (a pair started ahead that will not run).
  const std::atomic<bool>* cancel = nullptr;
  // The worker runs in the idle scheduling class (SCHED_IDLE), so that it never delays abench
  // or a timed worker: a counting run beside the timed rounds. Only the worker: a thread of
  // abench in that class, holding the results' lock, would stall the thread pacing a pair.
  bool idle_class = false;
  // The frame the worker starts in, its stack moved down a further stack_shift bytes, and with
  // fixed_addresses its address space not randomised (personality ADDR_NO_RANDOMIZE, for this
  // worker alone).
  FrameSize frame = {};
  int stack_shift = 0;
  bool fixed_addresses = false;
  // Not empty: the executable runs from a fresh copy made in this directory for this worker
  // alone, removed when it ends, so that its code lies in page-cache pages of its own: where
  // in physical memory a file's code lies is fixed while the file is cached, and two copies of
  // one binary measured against each other differed by up to 7% that way (src/run/launch_frame.h).
  std::string fresh_copy_dir = {};
  // Not empty (with fresh_copy_dir): the shared object serving the worker's malloc, copied too
  // and loaded from its copy (src/run/process_copy.h).
  std::string fresh_copy_library = {};
  // Not empty (with fresh_copy_dir): the copy is this layout's (--layouts), made under this name
  // by the first worker that needs it and kept for the others of its layout until the run ends.
  std::string shared_copy_name = {};
  // Called with the worker's pid as soon as it is spawned, before anything can reap it (a
  // counting run beside the timed rounds, src/run/counting_pause.h). Should it throw, the
  // worker is killed and the exception leaves run.
  std::function<void(pid_t)> on_spawned = {};
};

// Called for every protocol line as soon as it arrives; returns the seconds the worker
// may take for its next line (0: the allowance stays as it was).
using ProtocolLineHandler = std::function<double(std::string_view line)>;

class WorkerLauncher {
 public:
  virtual ~WorkerLauncher() = default;
  // Runs the worker to completion.
  virtual LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) = 0;
};

}  // namespace abench
