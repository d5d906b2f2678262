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
// UsageError when dir holds no interrupted run of that command.
std::vector<std::string> resume_command_line(const std::filesystem::path& dir, const std::string& command,
                                             const std::string& program);

// A stored command line less the options named, "--opt value" and "--opt=value" both.
std::vector<std::string> without_options(const std::vector<std::string>& line,
                                         std::initializer_list<std::string_view> options);

// Lays what the stored run finished into results, whose plan was built again from the
// same command line: the same cells, or a UsageError (the matrix file changed since).
void restore_finished(RunResults& results, const nlohmann::json& stored, const std::string& path);

// What a stored cell of results.json measured (processes, failures, refusal, counts,
// rounds done), laid into a cell of the same plan. Throws nlohmann::json errors.
void restore_cell(CellRecord& cell, const nlohmann::json& stored_cell, const MetricNames& names);

// What the first worker of each stored variant said at start-up (allocator version,
// malloc object, entry set...), as results.json keeps it; empty where none started.
std::vector<std::optional<WorkerHello>> hellos_as_stored(const nlohmann::json& stored);

// The plan's jobs, each without the cells it already finished; jobs with none left dropped.
std::vector<Job> jobs_left(const RunResults& results);

}  // namespace abench
