// bisect --resume DIR: the steps an interrupted bisect finished, read back from its
// bisect.json, so that it goes on where it stopped. The file is data: every field checked,
// and it must be a bisect of what the command line asks (the repository, both ends, the build
// command and the spec), which is never read from it: a build command is a shell's.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "src/flow/bisect_files.h"

namespace abench {

struct FinishedSteps {
  BisectStep ends;
  std::map<std::string, BisectStep> tested;  // by commit
};

// UsageError naming the file and field where it is not such a bisect.json, or one of another
// bisect than `asked` (its repo, good, bad, build and spec).
FinishedSteps read_finished_steps(const std::filesystem::path& file, const BisectRecord& asked);

}  // namespace abench
