#include "src/util/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {

void write_file_atomically(const std::filesystem::path& path, std::string_view content, mode_t mode) {
  std::string name = path.string() + ".tmp.XXXXXX";
  auto fail = [&](const char* what, bool created) {
    const std::string message = fmt::format("{} {}: {}", what, name, std::strerror(errno));
    if (created) ::unlink(name.c_str());
    throw EnvironmentError(message);
  };
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);  // O_CREAT|O_EXCL: never through a link
  if (fd < 0) fail("cannot create", false);
  if (::fchmod(fd, mode) != 0) {
    ::close(fd);
    fail("cannot set the mode of", true);
  }
  for (std::size_t written = 0; written < content.size();) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      fail("cannot write", true);
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("cannot flush", true);
  }
  ::close(fd);
  if (::rename(name.c_str(), path.c_str()) != 0) fail("cannot rename into place", true);
}

void make_output_subdirectory(const std::filesystem::path& dir) {
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    throw EnvironmentError(fmt::format("{}: cannot create: {}", dir.string(), std::strerror(errno)));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0)
    throw EnvironmentError(fmt::format("{}: cannot read: {}", dir.string(), std::strerror(errno)));
  if (S_ISLNK(st.st_mode))
    throw UsageError(
        fmt::format("{}: is a symbolic link; abench writes only into directories of its own there, "
                    "never through a link (remove it); nothing was written into it",
                    dir.string()));
  if (!S_ISDIR(st.st_mode))
    throw UsageError(fmt::format("{}: is not a directory (remove it); nothing was written into it", dir.string()));
}

std::filesystem::path make_private_directory(const std::filesystem::path& parent, std::string_view prefix) {
  std::string name = (parent / (std::string(prefix) + "XXXXXX")).string();
  if (::mkdtemp(name.data()) == nullptr)
    throw EnvironmentError(fmt::format("{}: cannot create a directory: {}", name, std::strerror(errno)));
  return name;
}

}  // namespace abench
