#include "src/flow/git_repository.h"

#include <sstream>

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.pop_back();
  return text;
}

// A revision as the user typed it, refused where git would read it as an option.
void check_revision_text(const std::string& rev, const char* option) {
  if (rev.empty() || rev.front() == '-' || rev.size() > 200 ||
      rev.find_first_of(std::string("\0 \t\n", 4)) != std::string::npos)
    throw UsageError(fmt::format("option {}: '{}' is not a revision (allowed: a commit hash, tag or branch)", option,
                                 printable(rev.substr(0, 60))));
}

}  // namespace

GitRepository::GitRepository(std::string dir, std::filesystem::path scratch)
    : dir_(std::move(dir)), scratch_(std::move(scratch)) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir_, ec))
    throw UsageError(fmt::format("option --repo: {} is not a directory", printable(dir_)));
  dir_ = std::filesystem::absolute(dir_).string();  // git runs in a directory of abench's
  const Finished top = git({"rev-parse", "--show-toplevel"});
  if (top.exit_code != 0)
    throw UsageError(
        fmt::format("option --repo: {} is not a git repository: {}", printable(dir_), printable_tail(top.output, 300)));
  const Finished status = git({"status", "--porcelain", "--untracked-files=no"});
  if (status.exit_code != 0 || !trimmed(status.output).empty())
    throw UsageError(
        fmt::format("option --repo: {} has uncommitted changes ({}): bisect tests commits; commit or stash them first",
                    printable(dir_), printable_tail(trimmed(status.output), 200)));
}

Finished GitRepository::git(std::vector<std::string> args) {
  args.insert(args.begin(), {"git", "-C", dir_});
  return run_program(args, scratch_, scratch_ / "git-output.txt");
}

std::string GitRepository::commit_of(const std::string& rev, const char* option) {
  check_revision_text(rev, option);
  const Finished found = git({"rev-parse", "--verify", "--quiet", "--end-of-options", rev + "^{commit}"});
  if (found.exit_code != 0)
    throw UsageError(fmt::format("option {}: '{}' is not a commit of {}", option, printable(rev), printable(dir_)));
  return trimmed(found.output);
}

std::vector<std::string> GitRepository::path_between(const std::string& good, const std::string& bad) {
  if (git({"merge-base", "--is-ancestor", good, bad}).exit_code != 0)
    throw UsageError(
        fmt::format("options --good and --bad: {} is not an ancestor of {}: nothing to bisect between them",
                    good.substr(0, 12), bad.substr(0, 12)));
  const Finished listed = git({"rev-list", "--ancestry-path", "--reverse", good + ".." + bad});
  if (listed.exit_code != 0)
    throw EnvironmentError(fmt::format("git rev-list failed in {}: {}", dir_, printable_tail(listed.output, 300)));
  std::vector<std::string> commits{good};
  std::istringstream lines(listed.output);
  for (std::string line; std::getline(lines, line);)
    if (!trimmed(line).empty()) commits.push_back(trimmed(line));
  if (commits.size() < 2) throw UsageError("options --good and --bad: they name the same commit");
  return commits;
}

std::string GitRepository::subject_of(const std::string& commit) {
  const Finished shown = git({"log", "-1", "--format=%s", commit});
  return shown.exit_code == 0 ? trimmed(shown.output) : "";
}

void GitRepository::add_worktree(const std::string& commit, const std::filesystem::path& where) {
  git({"worktree", "prune"});  // a worktree of a bisect that was killed is registered still
  const Finished added = git({"worktree", "add", "--detach", "--quiet", where.string(), commit});
  if (added.exit_code != 0)
    throw EnvironmentError(fmt::format("git worktree add {} {} failed in {}: {}", where.string(), commit.substr(0, 12),
                                       dir_, printable_tail(added.output, 300)));
}

void GitRepository::remove_worktree(const std::filesystem::path& where) {
  git({"worktree", "remove", "--force", where.string()});
  git({"worktree", "prune"});
}

}  // namespace abench
