// Running a program to its end: argv as given (no shell unless argv asks for one), stdin
// from /dev/null, stdout and stderr together into a file the caller names, so that a
// build's or git's messages can be kept and shown.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace abench {

struct Finished {
  int exit_code = 0;   // the program's; 128 + the signal's number when a signal ended it
  std::string output;  // what it printed (stdout and stderr, as they came)
};

// Runs argv[0] (found on PATH) in `work_dir`, its output written to `output_file` and read
// back. EnvironmentError when it cannot be started; 127 when it was not found.
Finished run_program(const std::vector<std::string>& argv, const std::filesystem::path& work_dir,
                     const std::filesystem::path& output_file);

}  // namespace abench
