// The owner-only store and the key that signs abench's records (src/util/owner_only_directory.h,
// src/util/signing_key.h), on real files: each way something else could have put a file there
// is refused, and a MAC verifies only under the key that made it.
#include "src/util/owner_only_directory.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <functional>

#include <gtest/gtest.h>

#include "src/util/errors.h"
#include "src/util/signing_key.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

namespace fs = std::filesystem;

fs::perms mode_of(const fs::path& p) { return fs::symlink_status(p).permissions() & fs::perms::mask; }

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(not refused)";
}

TEST(OwnerOnlyDirectory, MakesWhatIsMissingOwnerOnlyWhateverTheUmask) {
  testing::TempDir dir;
  const mode_t was = umask(0);
  const OwnerOnlyDirectory base(dir.path() / "state", /*create=*/true);
  const auto child = base.child("abench", /*create=*/true);
  umask(was);
  ASSERT_TRUE(child);
  EXPECT_EQ(mode_of(dir.path() / "state"), fs::perms::owner_all);
  EXPECT_EQ(mode_of(dir.path() / "state" / "abench"), fs::perms::owner_all);
  EXPECT_FALSE(base.child("absent", /*create=*/false));
  child->write_atomically("record.json", "{}");
  EXPECT_EQ(mode_of(dir.path() / "state" / "abench" / "record.json"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(child->read("record.json", /*secret=*/true, 100), "{}");
  EXPECT_FALSE(child->read("absent.json", false, 100));
}

TEST(OwnerOnlyDirectory, RefusesADirectoryOthersCanWriteOrThatIsALink) {
  testing::TempDir dir;
  const OwnerOnlyDirectory base(dir.path() / "state", true);
  fs::create_directory(dir.path() / "state" / "open");
  fs::permissions(dir.path() / "state" / "open", fs::perms::all);
  EXPECT_NE(refusal([&] { base.child("open", false); }).find("others may write in it (mode 0777)"), std::string::npos);
  fs::create_directory(dir.path() / "elsewhere");
  fs::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "state" / "link");
  EXPECT_NE(refusal([&] { base.child("link", true); }).find("symbolic link"), std::string::npos);
  fs::permissions(dir.path() / "state", fs::perms::group_write, fs::perm_options::add);
  EXPECT_NE(refusal([&] { OwnerOnlyDirectory(dir.path() / "state", false); }).find("others may write in it"),
            std::string::npos);
}

TEST(OwnerOnlyDirectory, ReadsOnlyARegularFileOfItsOwnerWithOneName) {
  testing::TempDir dir;
  const OwnerOnlyDirectory base(dir.path() / "s", true);
  const fs::path s = dir.path() / "s";
  base.write_atomically("a", "abc");
  fs::create_symlink(s / "a", s / "link");
  EXPECT_NE(refusal([&] { base.read("link", false, 100); }).find("symbolic link"), std::string::npos);
  fs::create_hard_link(s / "a", dir.path() / "second");
  EXPECT_NE(refusal([&] { base.read("a", false, 100); }).find("it has 2 names"), std::string::npos);
  fs::remove(dir.path() / "second");
  EXPECT_EQ(base.read("a", false, 100), "abc");
  EXPECT_NE(refusal([&] { base.read("a", false, 2); }).find("holds 3 bytes"), std::string::npos);
  fs::permissions(s / "a", fs::perms::group_read, fs::perm_options::add);
  EXPECT_EQ(base.read("a", false, 100), "abc");
  EXPECT_NE(refusal([&] { base.read("a", true, 100); }).find("others may read or write it"), std::string::npos);
  fs::permissions(s / "a", fs::perms::others_write, fs::perm_options::add);
  EXPECT_NE(refusal([&] { base.read("a", false, 100); }).find("others may write it"), std::string::npos);
  ASSERT_EQ(mkfifo((s / "fifo").c_str(), 0600), 0);
  EXPECT_NE(refusal([&] { base.read("fifo", false, 100); }).find("not a regular file"), std::string::npos);
  if (geteuid() == 0) {  // only root can give a file away
    base.write_atomically("given", "x");
    ASSERT_EQ(chown((s / "given").c_str(), 65534, 65534), 0);
    EXPECT_NE(refusal([&] { base.read("given", false, 100); }).find("belongs to user id 65534"), std::string::npos);
  }
}

TEST(OwnerOnlyDirectory, CreateOnceKeepsWhatWasThereFirst) {
  testing::TempDir dir;
  const OwnerOnlyDirectory base(dir.path() / "s", true);
  EXPECT_TRUE(base.create_once("key", "first"));
  EXPECT_FALSE(base.create_once("key", "second"));
  EXPECT_EQ(base.read("key", true, 100), "first");
  // No temporary is left behind either way.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path() / "s"), fs::directory_iterator()), 1);
}

TEST(SigningKey, IsMadeOnceSecretAndVerifiesOnlyItsOwnMacs) {
  testing::TempDir dir;
  const OwnerOnlyDirectory mine(dir.path() / "mine", true);
  const OwnerOnlyDirectory theirs(dir.path() / "theirs", true);
  EXPECT_FALSE(SigningKey::in(mine, /*create=*/false));
  const auto key = SigningKey::in(mine, true);
  ASSERT_TRUE(key);
  EXPECT_EQ(mode_of(dir.path() / "mine" / "key"), fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(fs::file_size(dir.path() / "mine" / "key"), 32u);
  const std::string mac = key->sign("run 1 in /a");
  EXPECT_EQ(mac.size(), 64u);
  EXPECT_TRUE(SigningKey::in(mine, false)->verifies("run 1 in /a", mac));  // the same key read again
  EXPECT_FALSE(key->verifies("run 1 in /b", mac));
  EXPECT_FALSE(key->verifies("run 1 in /a", mac.substr(0, 63)));
  EXPECT_FALSE(SigningKey::in(theirs, true)->verifies("run 1 in /a", mac));
  const OwnerOnlyDirectory odd(dir.path() / "odd", true);
  odd.write_atomically("key", std::string(31, 'k'));
  EXPECT_NE(refusal([&] { SigningKey::in(odd, false); }).find("holds 31 bytes, not 32"), std::string::npos);
}

}  // namespace
}  // namespace abench
