#include "src/util/owner_only_directory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <utility>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {
namespace {

constexpr int kDirectoryFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;

std::string errno_text(int error) { return std::strerror(error); }

// "" when the directory open at fd is this user's and nobody else can change what is in it.
std::string unsafe_directory_because(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0) return errno_text(errno);
  if (!S_ISDIR(st.st_mode)) return "it is not a directory";
  if (st.st_uid != geteuid())
    return fmt::format("it belongs to user id {}, not to this user ({})", st.st_uid, geteuid());
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return fmt::format("others may write in it (mode {:04o})", st.st_mode & 07777);
  return "";
}

int checked_directory(int fd, const std::filesystem::path& path) {
  if (const std::string why = unsafe_directory_because(fd); !why.empty()) {
    close(fd);
    throw UsageError(
        fmt::format("{}: abench keeps what vouches for its runs only in a directory of this "
                    "user's that nobody else can write in: {}",
                    path.string(), why));
  }
  return fd;
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    const ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw EnvironmentError(fmt::format("{}: {}", path.string(), errno_text(errno)));
    content.remove_prefix(static_cast<std::size_t>(n));
  }
  if (fsync(fd) != 0) throw EnvironmentError(fmt::format("{}: {}", path.string(), errno_text(errno)));
}

}  // namespace

OwnerOnlyDirectory::OwnerOnlyDirectory(const std::filesystem::path& base, bool create) : path_(base) {
  if (create) {
    std::error_code ec;
    if (std::filesystem::create_directories(base, ec)) {
      if (chmod(base.c_str(), 0700) != 0)
        throw EnvironmentError(fmt::format("{}: cannot make it owner-only: {}", base.string(), errno_text(errno)));
    } else if (ec) {
      throw EnvironmentError(fmt::format("{}: {}", base.string(), ec.message()));
    }
  }
  const int fd = open(base.c_str(), kDirectoryFlags);
  if (fd < 0) throw UsageError(fmt::format("{}: {}", base.string(), errno_text(errno)));
  fd_ = checked_directory(fd, base);
}

OwnerOnlyDirectory::OwnerOnlyDirectory(OwnerOnlyDirectory&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

OwnerOnlyDirectory::~OwnerOnlyDirectory() {
  if (fd_ >= 0) close(fd_);
}

std::optional<OwnerOnlyDirectory> OwnerOnlyDirectory::child(const std::string& name, bool create) const {
  const std::filesystem::path path = path_ / name;
  bool made = false;
  if (create) {
    if (mkdirat(fd_, name.c_str(), 0700) == 0)
      made = true;
    else if (errno != EEXIST)
      throw EnvironmentError(fmt::format("{}: cannot make it: {}", path.string(), errno_text(errno)));
  }
  const int fd = openat(fd_, name.c_str(), kDirectoryFlags | O_NOFOLLOW);
  if (fd < 0 && errno == ENOENT && !create) return std::nullopt;
  if (fd < 0 && (errno == ELOOP || errno == ENOTDIR))
    throw UsageError(
        fmt::format("{}: it is a symbolic link or not a directory; abench follows no link there", path.string()));
  if (fd < 0) throw UsageError(fmt::format("{}: {}", path.string(), errno_text(errno)));
  // umask may have taken bits from 0700, never added any: set exactly what abench means.
  if (made && fchmod(fd, 0700) != 0) {
    const int error = errno;
    close(fd);
    throw EnvironmentError(fmt::format("{}: cannot make it owner-only: {}", path.string(), errno_text(error)));
  }
  return OwnerOnlyDirectory(checked_directory(fd, path), path);
}

std::optional<std::string> OwnerOnlyDirectory::read(const std::string& name, bool secret, std::size_t max_bytes) const {
  const std::filesystem::path path = path_ / name;
  // O_NONBLOCK: a FIFO planted at the name must not hang the open.
  const int fd = openat(fd_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::nullopt;
  if (fd < 0 && errno == ELOOP) throw UsageError(fmt::format("{}: it is a symbolic link", path.string()));
  if (fd < 0) throw UsageError(fmt::format("{}: {}", path.string(), errno_text(errno)));
  struct stat st {};
  std::string why;
  if (fstat(fd, &st) != 0)
    why = errno_text(errno);
  else if (!S_ISREG(st.st_mode))
    why = "it is not a regular file";
  else if (st.st_uid != geteuid())
    why = fmt::format("it belongs to user id {}, not to this user ({})", st.st_uid, geteuid());
  else if (st.st_nlink != 1)
    why = fmt::format("it has {} names (a hard link to it is elsewhere)", st.st_nlink);
  else if ((st.st_mode & (secret ? 077 : 022)) != 0)
    why = fmt::format("others may {} it (mode {:04o})", secret ? "read or write" : "write", st.st_mode & 07777);
  else if (static_cast<std::size_t>(st.st_size) > max_bytes)
    why = fmt::format("it holds {} bytes, more than the {} abench writes there", st.st_size, max_bytes);
  std::string content(why.empty() ? static_cast<std::size_t>(st.st_size) : 0, '\0');
  for (std::size_t done = 0; why.empty() && done < content.size();) {
    const ssize_t n = pread(fd, content.data() + done, content.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) why = n < 0 ? errno_text(errno) : "it was cut short while read";
    done += n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  close(fd);
  if (!why.empty()) throw UsageError(fmt::format("{}: not a file abench wrote: {}", path.string(), why));
  return content;
}

std::string OwnerOnlyDirectory::write_temporary(std::string_view content) const {
  std::random_device random;
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = fmt::format(".tmp-{}-{:08x}{:08x}", getpid(), random(), random());
    const int fd = openat(fd_, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) throw EnvironmentError(fmt::format("{}: {}", (path_ / name).string(), errno_text(errno)));
    try {
      write_all(fd, content, path_ / name);
    } catch (...) {
      close(fd);
      unlinkat(fd_, name.c_str(), 0);
      throw;
    }
    close(fd);
    return name;
  }
  throw EnvironmentError(fmt::format("{}: no fresh name for a temporary file", path_.string()));
}

void OwnerOnlyDirectory::write_atomically(const std::string& name, std::string_view content) const {
  const std::string temporary = write_temporary(content);
  if (renameat(fd_, temporary.c_str(), fd_, name.c_str()) != 0) {
    const int error = errno;
    unlinkat(fd_, temporary.c_str(), 0);
    throw EnvironmentError(fmt::format("{}: {}", (path_ / name).string(), errno_text(error)));
  }
}

bool OwnerOnlyDirectory::create_once(const std::string& name, std::string_view content) const {
  const std::string temporary = write_temporary(content);
  const int linked = linkat(fd_, temporary.c_str(), fd_, name.c_str(), 0);
  const int error = errno;
  unlinkat(fd_, temporary.c_str(), 0);
  if (linked == 0) return true;
  if (error == EEXIST) return false;
  throw EnvironmentError(fmt::format("{}: {}", (path_ / name).string(), errno_text(error)));
}

void OwnerOnlyDirectory::remove(const std::string& name) const { unlinkat(fd_, name.c_str(), 0); }

}  // namespace abench
