// A timed worker's own copies of the files whose code it runs (LaunchRequest::fresh_copy_dir):
// its executable and the shared object that serves its malloc. Where in physical memory a
// file's code lies is fixed while the file is cached, so two builds' files each carry a bias
// of their own; a copy per process draws it anew (docs/measurement.md, "The same frame for
// both sides").
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "harness/protocol.h"
#include "src/run/launcher.h"

namespace abench {

struct ProcessCopy {
  std::string executable;  // what the worker runs from
  // The request's environment, the library's copy put in its place: in LD_PRELOAD where the
  // request preloads it, else first in LD_LIBRARY_PATH under the name it is loaded by.
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<std::string> made;  // files, then their directory: what remove_process_copy removes
};

// The copies for one worker, numbered `number` (unique within the run's directory), or those of
// its layout (request.shared_copy_name), made once and then reused, never in `made`. "" or why
// not, with nothing left behind.
std::string make_process_copy(const LaunchRequest& request, unsigned long number, ProcessCopy& copy);

// The name of a variant's copies for one of --layouts' layouts: as long as a numbered one's.
std::string shared_copy_name(std::size_t variant, int layout);

// Removes what make_process_copy made, once the worker has ended.
void remove_process_copy(const std::vector<std::string>& made);

// What a worker run from copies in copy_dir says about its files (malloc's object, its entry
// functions' objects), naming the files the copies were made from: the executable (asked only
// when needed) or the library.
void name_files_copied_from(WorkerHello& hello, const std::string& copy_dir,
                            const std::function<std::string()>& executable, const std::string& library);

}  // namespace abench
