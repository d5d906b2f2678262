#include "harness/perf_counters.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace abench {

PerfGroup::~PerfGroup() {
  for (int fd : fds_) close(fd);
}

std::string PerfGroup::open(const std::vector<PerfEventSpec>& events) {
  for (const PerfEventSpec& event : events) {
    perf_event_attr attr{};
    attr.size = sizeof attr;
    attr.type = event.type;
    attr.config = event.config;
    attr.disabled = fds_.empty() ? 1 : 0;  // the leader starts the group
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const int leader = fds_.empty() ? -1 : fds_.front();
    const long fd = syscall(SYS_perf_event_open, &attr, 0, -1, leader, 0);
    if (fd < 0) return std::string("perf_event_open(") + event.name + ") failed: " + std::strerror(errno);
    fds_.push_back(static_cast<int>(fd));
  }
  if (fds_.empty()) return "no events to count";
  buffer_.assign(3 + fds_.size(), 0);
  if (ioctl(fds_.front(), PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0)
    return std::string("enabling the perf group failed: ") + std::strerror(errno);
  return "";
}

void PerfGroup::read(std::vector<std::uint64_t>& counts) const {
  // PERF_FORMAT_GROUP layout: nr, time_enabled, time_running, then one value per event.
  const ssize_t got = ::read(fds_.front(), buffer_.data(), buffer_.size() * sizeof(std::uint64_t));
  if (got != static_cast<ssize_t>(buffer_.size() * sizeof(std::uint64_t)) || buffer_[0] != fds_.size())
    throw std::runtime_error(std::string("reading the perf group failed: ") + std::strerror(errno));
  if (buffer_[2] != buffer_[1])
    throw std::runtime_error(
        "the kernel multiplexed the perf counters (another user of the PMU?): their counts "
        "would be estimates, so none is reported");
  for (std::size_t e = 0; e < fds_.size(); ++e) counts[e] = buffer_[3 + e];
}

std::string perf_unavailable(Measure measure) {
  PerfGroup group;
  return group.open(perf_events_here(measure).events);
}

}  // namespace abench
