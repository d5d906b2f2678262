#include "src/flow/output_directory.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "src/plan/matrix.h"
#include "src/util/directory_lock.h"
#include "src/util/errors.h"
#include "src/util/names.h"
#include "src/util/text.h"
#include "src/util/timestamp.h"

namespace abench {
namespace {

constexpr const char* kLockFile = ".abench.lock";

// Up to five of what is in dir, for the refusal; empty when dir holds nothing.
std::vector<std::string> some_entries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(printable(entry.path().filename().string()) + (entry.is_directory() ? "/" : ""));
    if (names.size() == 5) break;
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

std::filesystem::path prepare_output_dir(const OutputDirectory& out, const std::string& name, bool resume) {
  const std::filesystem::path dir =
      out.path.empty() ? std::filesystem::path(source_directory()) / "results" /
                             checked_name(utc_timestamp("%Y%m%d-%H%M%S-") + name, "the output directory's name")
                       : std::filesystem::path(out.path);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw EnvironmentError(fmt::format("--out {}: cannot create directory: {}", dir.string(), ec.message()));
  // What was there before this command's lock file: an abench command has written here if a
  // lock file was.
  const bool abench_was_here = std::filesystem::exists(std::filesystem::symlink_status(dir / kLockFile, ec));
  const std::vector<std::string> found = abench_was_here ? std::vector<std::string>{} : some_entries(dir);
  hold_output_directory(dir);  // before looking at what is there: a command writing it now is named
  if (resume) return dir;      // resume_command_line checked it holds an interrupted run
  if (std::filesystem::exists(dir / "results.json"))
    throw UsageError(
        fmt::format("--out {}: already holds a results.json; choose another "
                    "directory so no earlier result is overwritten",
                    dir.string()));
  if (!found.empty() && !out.force) {
    std::filesystem::remove(dir / kLockFile, ec);  // leave the directory as it was found
    throw UsageError(
        fmt::format("--out {}: holds what abench did not write ({}); choose an empty or new directory, "
                    "or add --force to write abench's files among them; nothing was written",
                    dir.string(), fmt::join(found, ", ")));
  }
  return dir;
}

}  // namespace abench
