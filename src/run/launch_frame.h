// The frame a worker starts in: what the kernel puts on its first stack besides the program
// (its path, arguments and environment) and where its stack, heap and code lie. Two builds
// compared differ in their paths and environments; that must not move one side's stack
// against the other's, so every worker of a run gets one frame size, padded to, and with
// protocol.layout drawn or fixed its addresses are not randomised: both sides of a pair start
// at the same addresses, and a drawn layout moves them together from round to round
// (docs/measurement.md, "The same frame for both sides").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "src/plan/plan.h"
#include "src/results/results.h"
#include "src/run/launcher.h"

namespace abench {

// Where the timed workers' fresh copies are made ("": none) and, per variant, the library
// copied with the executable ("" or missing: none; src/run/process_copy.h).
struct CopiedFiles {
  std::string dir;
  std::vector<std::string> libraries;
};

// A frame as large as the largest of the plan's variants needs, in every mode it runs in
// (worker_path, under valgrind when callgrind_dir is not empty, from fresh copies).
FrameSize frame_for(const std::vector<Variant>& variants, const RunProtocol& protocol,
                    const std::function<std::string(const Variant&, WorkerMode)>& worker_path,
                    const std::string& valgrind, const std::string& callgrind_dir, const CopiedFiles& copies);

// A round's layout: nothing at protocol.layout kernel. A drawn one moves the stack by a
// multiple of 16 bytes below 4 KiB, from the run's seed and the round, so both sides of the
// round's pairs get the same; fixed layouts, counting runs and callgrind's counts (which must
// repeat) move nothing.
std::optional<ProcessLayout> layout_for(const RunProtocol& protocol, int round, WorkerMode mode);

// Whether a worker's layout is drawn: its stack shifted by the round's draw and its executable
// run from a fresh copy (LaunchRequest::fresh_copy_dir), so that its code's physical pages are
// drawn per process too. The timed, clock-measured workers of --layout drawn.
bool runs_fresh_copy(const RunProtocol& protocol, WorkerMode mode);

// The private directory (0700, under TMPDIR or /tmp) the workers' fresh copies are made in
// while a run lasts, removed with what is left in it; none when the protocol makes no copies.
// Throws UsageError when it cannot hold executables (mounted noexec), EnvironmentError when it
// cannot be made.
class FreshCopies {
 public:
  explicit FreshCopies(const RunProtocol& protocol);
  ~FreshCopies();
  FreshCopies(const FreshCopies&) = delete;
  FreshCopies& operator=(const FreshCopies&) = delete;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// Throws UsageError when the layout asks for what this system refuses (a seccomp filter that
// forbids turning address randomisation off for a child).
void check_layout_allowed(const RunProtocol& protocol);

// The environment entries that fill args (argv[0] first) and env up to frame.strings_bytes +
// shift bytes of strings and frame.entries pointers. Empty with *error set when they exceed it.
std::vector<std::string> frame_padding(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                       const std::string& executable, const FrameSize& frame, int shift,
                                       std::string* error);

}  // namespace abench
