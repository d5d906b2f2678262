// A directory only this user can change, reached without following a link: where abench keeps
// what vouches for something (its records of the runs it started, the key that signs them;
// docs/security.md, "What a record proves"). Every directory from the base down is checked to
// be this user's and writable by nobody else, and every file read is a regular file of this
// user's with one name, so nobody else can have planted, replaced or linked it there.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace abench {

class OwnerOnlyDirectory {
 public:
  // The base directory (a link to it is followed: the user chose it), which must be this user's
  // and writable by nobody else. With `create`, a missing base is made (mode 0700).
  // Throws UsageError naming the directory and what is wrong with it; EnvironmentError when it
  // cannot be made.
  OwnerOnlyDirectory(const std::filesystem::path& base, bool create);
  OwnerOnlyDirectory(OwnerOnlyDirectory&& other) noexcept;
  OwnerOnlyDirectory& operator=(OwnerOnlyDirectory&&) = delete;
  OwnerOnlyDirectory(const OwnerOnlyDirectory&) = delete;
  ~OwnerOnlyDirectory();

  // The subdirectory `name`, never through a link, checked alike; nullopt when it is absent and
  // `create` is false. Made with mode 0700 when `create`; a mode that cannot be set is an
  // EnvironmentError, never ignored.
  std::optional<OwnerOnlyDirectory> child(const std::string& name, bool create) const;

  // The file `name`'s content; nullopt when it is absent. Throws UsageError when it is not a
  // regular file of this user's with one name, is writable by others (readable by others too when
  // `secret`), or holds more than max_bytes.
  std::optional<std::string> read(const std::string& name, bool secret, std::size_t max_bytes) const;

  // Writes `name` (mode 0600) whole or not at all: a fresh temporary renamed over it.
  // Throws EnvironmentError.
  void write_atomically(const std::string& name, std::string_view content) const;

  // Writes `name` (mode 0600) only where nothing is: false when something already was (another
  // abench got there first). Throws EnvironmentError.
  bool create_once(const std::string& name, std::string_view content) const;

  // Removes `name` if it is there.
  void remove(const std::string& name) const;

  const std::filesystem::path& path() const { return path_; }

 private:
  OwnerOnlyDirectory(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  // A temporary of a fresh name in this directory holding `content`, its name returned.
  std::string write_temporary(std::string_view content) const;

  int fd_ = -1;
  std::filesystem::path path_;
};

}  // namespace abench
