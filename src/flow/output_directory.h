// Where a command writes: --out DIR, or results/<UTC time>-<name>; one rule for every command.
#pragma once

#include <filesystem>
#include <string>

namespace abench {

struct OutputDirectory {
  std::string path;    // --out; "": results/<UTC time>-<name>
  bool force = false;  // --force: write into a directory that holds what abench did not write
};

// Makes the directory and holds its lock (src/util/directory_lock.h). Refuses, with exit 2 and
// nothing written, a directory that already holds results (results.json), and one that holds
// anything though no abench command ever wrote there (no .abench.lock: another tool's report,
// someone's files) unless `force`. `resume`: the interrupted run being resumed, checked already.
std::filesystem::path prepare_output_dir(const OutputDirectory& out, const std::string& name, bool resume = false);

}  // namespace abench
