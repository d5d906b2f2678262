// Each commit a bisect tests, built once by the user's command (src/flow/bisect_flow.h): in a
// worktree of abench's own, into an output directory cached by commit and command, so a
// commit tested again, or by a later bisect with the same command, is not built again.
#pragma once

#include <filesystem>
#include <string>

#include "src/flow/git_repository.h"

namespace abench {

struct CommitBuild {
  bool built = false;
  std::filesystem::path out;  // {out}: what the build made
  std::filesystem::path log;  // the command's output
  std::string failure;        // why not built: the exit code and the log's end
};

class CommitBuilds {
 public:
  // `command`: run by /bin/sh in the commit's worktree, {src} and {out} replaced by their
  // paths (quoted for the shell). `cache`: where builds are kept.
  CommitBuilds(GitRepository& repo, std::string command, std::filesystem::path cache);
  CommitBuild build(const std::string& commit);

 private:
  GitRepository& repo_;
  std::string command_;
  std::filesystem::path cache_;
};

// The build cache abench keeps: $XDG_CACHE_HOME/abench/builds, else ~/.cache/abench/builds.
std::filesystem::path default_build_cache();

// `text` with every {key} replaced by `value` as is.
std::string with_placeholder(std::string text, const std::string& key, const std::string& value);

}  // namespace abench
