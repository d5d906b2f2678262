// The git repository a bisect walks (src/flow/bisect_flow.h), through the git program: its
// commits read, and a commit checked out into a worktree of abench's own, never touching
// the user's checkout.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/util/subprocess.h"

namespace abench {

class GitRepository {
 public:
  // UsageError when `dir` is not a git repository's work tree, or has uncommitted changes
  // (what a bisect tests is commits; a dirty tree suggests the user meant something else).
  // `scratch` holds git's output files.
  GitRepository(std::string dir, std::filesystem::path scratch);
  // The full hash of `rev`; UsageError naming `option` when DIR has no such commit.
  std::string commit_of(const std::string& rev, const char* option);
  // good, then every commit on the ancestry path from good to bad, oldest first, bad last.
  // UsageError when good is not an ancestor of bad.
  std::vector<std::string> path_between(const std::string& good, const std::string& bad);
  std::string subject_of(const std::string& commit);
  // A detached worktree of `commit` at `where` (which must not exist); removed by remove_worktree.
  void add_worktree(const std::string& commit, const std::filesystem::path& where);
  void remove_worktree(const std::filesystem::path& where);
  const std::string& dir() const { return dir_; }

 private:
  Finished git(std::vector<std::string> args);
  std::string dir_;
  std::filesystem::path scratch_;
};

}  // namespace abench
