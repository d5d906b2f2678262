#include "src/util/signing_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>

#include <fmt/format.h>

#include "src/util/errors.h"

namespace abench {
namespace {

constexpr const char* kKeyFile = "key";

}  // namespace

SigningKey::SigningKey(const std::string& bytes) { std::copy(bytes.begin(), bytes.end(), bytes_.begin()); }

std::optional<SigningKey> SigningKey::in(const OwnerOnlyDirectory& dir, bool create) {
  std::optional<std::string> bytes = dir.read(kKeyFile, /*secret=*/true, kBytes);
  if (!bytes && create) {
    std::string fresh(kBytes, '\0');
    if (RAND_bytes(reinterpret_cast<unsigned char*>(fresh.data()), static_cast<int>(kBytes)) != 1)
      throw EnvironmentError("OpenSSL could not draw a random key (RAND_bytes)");
    // Two abench starting at once: one key wins, and both use it.
    dir.create_once(kKeyFile, fresh);
    bytes = dir.read(kKeyFile, /*secret=*/true, kBytes);
  }
  if (!bytes) return std::nullopt;
  if (bytes->size() != kBytes)
    throw UsageError(fmt::format("{}: not a key abench made: it holds {} bytes, not {}",
                                 (dir.path() / kKeyFile).string(), bytes->size(), kBytes));
  return SigningKey(*bytes);
}

std::string SigningKey::sign(std::string_view message) const {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), bytes_.data(), static_cast<int>(bytes_.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &length) == nullptr)
    throw EnvironmentError("OpenSSL could not compute an HMAC-SHA256");
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", mac[i]);
  return hex;
}

bool SigningKey::verifies(std::string_view message, std::string_view mac) const {
  const std::string expected = sign(message);
  return mac.size() == expected.size() && CRYPTO_memcmp(expected.data(), mac.data(), mac.size()) == 0;
}

}  // namespace abench
