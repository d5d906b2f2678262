// Hardware (or software) event counters of this thread through perf_event_open, read as
// one group around every timed batch (--measure perf, docs/ci.md). Counting is user space
// only (exclude_kernel: what perf_event_paranoid 2 allows), so system calls and page-fault
// handling are not in the counts, while the batch's wall time still is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "harness/perf_events.h"
#include "harness/protocol.h"

namespace abench {

class PerfGroup {
 public:
  PerfGroup() = default;
  PerfGroup(const PerfGroup&) = delete;
  PerfGroup& operator=(const PerfGroup&) = delete;
  ~PerfGroup();

  // Opens and enables the group on the calling thread; "" on success, else why not.
  std::string open(const std::vector<PerfEventSpec>& events);
  // The current count of every event, in open()'s order, into `counts` (sized size()). It
  // allocates nothing, so reading around a timed batch leaves the allocator under test
  // alone. Throws std::runtime_error when the kernel multiplexed the group (it was not
  // counting all the time): such counts are estimates, and abench reports none.
  void read(std::vector<std::uint64_t>& counts) const;
  std::size_t size() const { return fds_.size(); }

 private:
  std::vector<int> fds_;
  mutable std::vector<std::uint64_t> buffer_;  // the kernel's group record
};

// Whether this machine can count `measure`'s events here (perf_events_here): "" yes, else
// the reason.
std::string perf_unavailable(Measure measure);

}  // namespace abench
