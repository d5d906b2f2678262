#include "src/flow/commit_builds.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/fnv1a.h"
#include "src/util/interrupt.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string shell_quoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string read_small_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string with_placeholder(std::string text, const std::string& key, const std::string& value) {
  const std::string placeholder = "{" + key + "}";
  for (auto at = text.find(placeholder); at != std::string::npos; at = text.find(placeholder, at + value.size()))
    text.replace(at, placeholder.size(), value);
  return text;
}

std::filesystem::path default_build_cache() {
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && cache[0] == '/')
    return std::filesystem::path(cache) / "abench" / "builds";
  if (const char* home = std::getenv("HOME"); home && home[0] == '/')
    return std::filesystem::path(home) / ".cache" / "abench" / "builds";
  throw UsageError("option --build-cache: neither XDG_CACHE_HOME nor HOME is set; name a directory for the builds");
}

CommitBuilds::CommitBuilds(GitRepository& repo, std::string command, std::filesystem::path cache)
    : repo_(repo), command_(std::move(command)), cache_(std::move(cache)) {}

CommitBuild CommitBuilds::build(const std::string& commit) {
  const auto dir = cache_ / fmt::format("{}-{:016x}", commit, fnv1a(command_));
  CommitBuild b{false, dir / "out", dir / "build.log", ""};
  // "built" or "failed: ...", written last: a build stopped half-way is built again.
  const std::string verdict = read_small_file(dir / "result");
  if (verdict == "built") return b.built = true, b;
  if (verdict.starts_with("failed")) return b.failure = verdict, b;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  std::filesystem::create_directories(b.out, ec);
  if (ec) throw EnvironmentError(fmt::format("cannot make the build directory {}: {}", b.out.string(), ec.message()));
  const auto src = dir / "src";
  repo_.add_worktree(commit, src);
  const std::string command = with_placeholder(with_placeholder(command_, "src", shell_quoted(src.string())), "out",
                                               shell_quoted(b.out.string()));
  const Finished ran = run_program({"/bin/sh", "-c", command}, src, b.log);
  repo_.remove_worktree(src);
  // A build stopped by a signal (Ctrl-C reaches the build too) says nothing about the commit:
  // it is not kept, and is built again next time.
  if (const int signal = interrupt_signal(); signal != 0)
    throw Interrupted(signal, fmt::format("bisect interrupted while building {}", commit.substr(0, 12)));
  if (ran.exit_code > 128)
    throw EnvironmentError(
        fmt::format("the build of {} was killed by signal {} ({}): not a build failure of the "
                    "commit; nothing was kept",
                    commit.substr(0, 12), ran.exit_code - 128, b.log.string()));
  b.built = ran.exit_code == 0;
  if (!b.built)
    b.failure =
        fmt::format("failed: the build command exited with {}: {}", ran.exit_code, printable_tail(ran.output, 400));
  write_file_atomically(dir / "result", b.built ? "built" : b.failure);
  return b;
}

}  // namespace abench
