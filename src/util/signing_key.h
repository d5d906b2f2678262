// A per-user secret that signs what abench writes for itself (HMAC-SHA256, OpenSSL): a record
// signed under it was written by an abench of this user's with this key, so a record planted
// or copied from elsewhere vouches for nothing (docs/security.md, "What a record proves").
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "src/util/owner_only_directory.h"

namespace abench {

class SigningKey {
 public:
  // The key kept in dir/key (32 random bytes, mode 0600, readable by nobody else); made there on
  // first use when `create`, else nullopt when there is none. Throws UsageError when the file
  // there is not one abench made (OwnerOnlyDirectory::read's checks, and its size).
  static std::optional<SigningKey> in(const OwnerOnlyDirectory& dir, bool create);

  // The message's MAC, 64 lowercase hex digits.
  std::string sign(std::string_view message) const;
  // Whether `mac` is the message's MAC (compared in constant time).
  bool verifies(std::string_view message, std::string_view mac) const;

 private:
  static constexpr std::size_t kBytes = 32;
  explicit SigningKey(const std::string& bytes);
  std::array<unsigned char, kBytes> bytes_{};
};

}  // namespace abench
