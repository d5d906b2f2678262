#include "src/util/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

constexpr const char* kLockName = ".abench.lock";

// What the holder wrote into the lock file, shortened and made printable.
std::string holder_of(int fd) {
  char text[512] = {};
  const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
  const std::string holder = n > 0 ? printable(std::string_view(text, static_cast<std::size_t>(n))) : "";
  return holder.empty() ? "a process that has not said who it is yet" : holder;
}

std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::replace(line.begin(), line.end(), '\0', ' ');
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

}  // namespace

void hold_output_directory(const std::filesystem::path& dir) {
  static std::mutex mutex;
  static std::set<std::pair<dev_t, ino_t>> held;  // by this process: their descriptors stay open
  const std::lock_guard guard(mutex);
  const std::filesystem::path path = dir / kLockName;
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
  // Whatever was planted there, one answer: a link, a directory, a socket, a FIFO, or a file
  // with another name elsewhere (which the holder's line would overwrite) is not abench's lock.
  const auto planted = [&](const char* what) {
    return UsageError(
        fmt::format("{}: is {}; abench locks only a regular file of its own there (remove it); "
                    "nothing was written",
                    path.string(), what));
  };
  if (fd < 0 && errno == ELOOP) throw planted("a symbolic link");
  if (fd < 0 && (errno == EISDIR || errno == ENXIO || errno == EOPNOTSUPP)) throw planted("not a regular file");
  if (fd < 0) throw EnvironmentError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    const bool regular = S_ISREG(st.st_mode);
    const auto links = st.st_nlink;
    ::close(fd);
    if (!regular) throw planted("not a regular file");
    throw planted(fmt::format("a file with {} names (a hard link to a file elsewhere?)", links).c_str());
  }
  if (held.contains({st.st_dev, st.st_ino})) {
    ::close(fd);
    return;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = holder_of(fd);
    ::close(fd);
    if (error == EWOULDBLOCK)
      throw UsageError(
          fmt::format("{}: another abench command is writing there ({}); wait for it to end or choose "
                      "another directory; nothing was written",
                      dir.string(), holder));
    throw EnvironmentError(fmt::format("{}: cannot lock: {}", path.string(), std::strerror(error)));
  }
  // Who holds it is for a second command's message only: a failed write changes nothing.
  const std::string who = fmt::format("pid {}: {}", ::getpid(), own_command_line());
  const bool said = ::ftruncate(fd, 0) == 0 && ::pwrite(fd, who.data(), who.size(), 0) >= 0;
  static_cast<void>(said);
  held.insert({st.st_dev, st.st_ino});
}

}  // namespace abench
