#include "src/util/atomic_file.h"

#include "src/util/errors.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace abench {

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path temporary =
      path.string() + ".tmp." + std::to_string(static_cast<long>(getpid()));
  auto fail = [&](const char* what) {
    const std::string message = std::string(what) + " " + temporary.string() + ": " + std::strerror(errno);
    ::unlink(temporary.c_str());
    throw EnvironmentError(message);
  };
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("cannot create");
  for (std::size_t written = 0; written < content.size();) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      fail("cannot write");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) {
    ::close(fd);
    fail("cannot flush");
  }
  ::close(fd);
  if (::rename(temporary.c_str(), path.c_str()) != 0) fail("cannot rename into place");
}

}  // namespace abench
