// `abench run|compare --resume DIR [--trust-stored-command]`: the command line stored in DIR
// takes the typed one's place, with what vouches for it.
#pragma once

#include <string>
#include <vector>

namespace abench {

struct ResumeRequest {
  std::string dir;                // "" not a resume
  std::string untrusted_because;  // as MeasureOptions::resume_untrusted_because
};

// The argument vector to parse: argv itself, or for a resume the command line stored in DIR
// with its seed and --out DIR (src/run/resume.h), after printing it; fills *resume.
std::vector<std::string> command_line_to_parse(int argc, char** argv, ResumeRequest* resume);

}  // namespace abench
