// Continuing an interrupted run (`abench run|compare --resume DIR`): the command it was
// started with, what it had finished (read back from DIR/results.json into the cells of
// the same plan, built again), and the jobs still to run.
#pragma once

#include <filesystem>
#include <optional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

// The stored command line of the interrupted `command` in dir, to be parsed again: its
// options, with the seed it ran with and --out dir, so the plan and seeds are the same.
struct StoredCommand {
  std::vector<std::string> args;
  // "" when abench recorded starting exactly this command in dir on this machine
  // (src/run/run_origin.h); else why it cannot vouch for the code the command names.
  std::string unrecorded_because;
};

// UsageError when dir holds no interrupted run of that command.
StoredCommand resume_command_line(const std::filesystem::path& dir, const std::string& command,
                                  const std::string& program);

// A stored command line less the options named, "--opt value" and "--opt=value" both.
std::vector<std::string> without_options(const std::vector<std::string>& line,
                                         std::initializer_list<std::string_view> options);

// Lays what the stored run finished into results, whose plan was built again from the
// same command line: the same cells, or a UsageError (the matrix file changed since). The
// stored file is read through the one reader (src/results/results_reader.h), validated.
void restore_finished(RunResults& results, const nlohmann::json& stored, const std::string& path);

// UsageError when a variant's stored figures were measured by another timed loop than the one
// its worker runs now (`loops`, each variant's, src/run/preflight.h): one cell's figures must come
// from one loop.
void check_same_timed_loops(const RunResults& results, const std::vector<std::string>& loops, const std::string& path);

// The plan's jobs, each without the cells it already finished; jobs with none left dropped.
std::vector<Job> jobs_left(const RunResults& results);

}  // namespace abench
