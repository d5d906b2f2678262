// The JSON reader every user-supplied file goes through: hostile input is refused with the
// file and the reason, never a crash, an endless read or a silent last-key-wins.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

std::string error_reading(const std::string& path) {
  try {
    read_json_file(path, "the matrix");
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

TEST(JsonFile, ReadsAnOrdinaryFile) {
  testing::TempDir dir;
  const nlohmann::json j = read_json_file(dir.write("m.json", R"({"a": [1, {"b": 2}], "c": 1e300})"), "the matrix");
  EXPECT_EQ(j["a"][1]["b"], 2);
}

TEST(JsonFile, RefusesNestingDeeperThanTheLimitWithoutRecursing) {
  testing::TempDir dir;
  // 200,000 levels used to crash abench (recursion while the error message was built).
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const std::string error = error_reading(dir.write("deep.json", deep));
  EXPECT_NE(error.find("deep.json"), std::string::npos) << error;
  EXPECT_NE(error.find("more than 64 levels deep"), std::string::npos) << error;
  // At the limit it still reads.
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_EQ(error_reading(dir.write("ok.json", ok)), "");
}

TEST(JsonFile, RefusesADuplicateKeyNamingIt) {
  testing::TempDir dir;
  const std::string error = error_reading(dir.write("dup.json", R"({"sizes": [64], "live": [1], "sizes": [128]})"));
  EXPECT_NE(error.find("field 'sizes' appears twice"), std::string::npos) << error;
  // The same key in two different objects is fine.
  EXPECT_EQ(error_reading(dir.write("two.json", R"({"a": {"x": 1}, "b": {"x": 2}})")), "");
}

TEST(JsonFile, RefusesANumberNoDoubleCanHold) {
  testing::TempDir dir;
  const std::string error = error_reading(dir.write("big.json", R"({"sizes": [1e400]})"));
  EXPECT_NE(error.find("big.json"), std::string::npos) << error;
  EXPECT_NE(error.find("number out of range"), std::string::npos) << error;
}

TEST(JsonFile, RefusesDirectoriesDevicesAndHugeFilesBeforeReading) {
  testing::TempDir dir;
  EXPECT_NE(error_reading(dir.path().string()).find("is a directory"), std::string::npos);
  EXPECT_NE(error_reading("/dev/zero").find("not a regular file"), std::string::npos);
  const auto huge = dir.path() / "huge.json";
  { std::ofstream(huge) << "{}"; }
  std::filesystem::resize_file(huge, kMaxJsonFileBytes + 1);  // sparse: nothing is written
  EXPECT_NE(error_reading(huge.string()).find("at most 64 MiB"), std::string::npos) << error_reading(huge.string());
  EXPECT_NE(error_reading((dir.path() / "missing.json").string()).find("no such file"), std::string::npos);
}

TEST(JsonFile, MalformedJsonNamesLineAndColumn) {
  testing::TempDir dir;
  const std::string error = error_reading(dir.write("bad.json", "{\n  \"a\": [1,\n  ]\n}\n"));
  EXPECT_NE(error.find("malformed JSON at line 3, column 3"), std::string::npos) << error;
}

// A file below a directory handed over (a results directory, a shard) is read through no link:
// a link at any directory on the way or at the file is refused naming where it is, and so is
// a path that climbs out; the directory's own path may be a link (the user named it).
TEST(JsonFile, BelowADirectoryNoLinkOnTheWayIsFollowed) {
  namespace fs = std::filesystem;
  testing::TempDir dir;
  const fs::path root = dir.path() / "results", outside = dir.path() / "outside";
  fs::create_directories(root / "explain" / "hot-path");
  fs::create_directories(outside / "hot-path");
  std::ofstream(root / "explain" / "hot-path" / "index.json") << R"({"a": 1})";
  std::ofstream(outside / "hot-path" / "index.json") << R"({"secret": 1})";
  const fs::path relative = fs::path("explain") / "hot-path" / "index.json";
  EXPECT_EQ(read_json_file_below(root, relative, "the index")["a"], 1);
  fs::create_directory_symlink(root, dir.path() / "named");
  EXPECT_EQ(read_json_file_below(dir.path() / "named", relative, "the index")["a"], 1);
  const auto refusal = [&](const fs::path& rel) {
    try {
      read_json_file_below(root, rel, "the index");
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  // A link at each place on the way, in turn.
  fs::rename(root / "explain" / "hot-path" / "index.json", dir.path() / "kept.json");
  fs::create_symlink(outside / "hot-path" / "index.json", root / "explain" / "hot-path" / "index.json");
  EXPECT_NE(refusal(relative).find("index.json is a link or not a directory"), std::string::npos) << refusal(relative);
  fs::remove_all(root / "explain" / "hot-path");
  fs::create_directory_symlink(outside / "hot-path", root / "explain" / "hot-path");
  EXPECT_NE(refusal(relative).find("hot-path is a link or not a directory"), std::string::npos) << refusal(relative);
  fs::remove_all(root / "explain");
  fs::create_directory_symlink(outside, root / "explain");
  EXPECT_NE(refusal(relative).find("explain is a link or not a directory"), std::string::npos) << refusal(relative);
  EXPECT_NE(refusal(fs::path("..") / "outside" / "hot-path" / "index.json").find("must lie below"), std::string::npos);
  fs::remove(root / "explain");
  fs::create_directories(root / "explain");
  ASSERT_EQ(mkfifo((root / "explain" / "fifo").c_str(), 0600), 0);
  EXPECT_NE(refusal(fs::path("explain") / "fifo").find("not a regular file"), std::string::npos);
  EXPECT_NE(refusal(fs::path("explain") / "absent.json").find("no such file"), std::string::npos);
}

}  // namespace
}  // namespace abench
