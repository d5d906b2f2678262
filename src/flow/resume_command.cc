#include "src/flow/resume_command.h"

#include <algorithm>

#include <fmt/format.h>

#include "src/run/resume.h"
#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {

std::vector<std::string> command_line_to_parse(int argc, char** argv, ResumeRequest* resume) {
  std::vector<std::string> args(argv, argv + argc);
  const auto at = std::find_if(args.begin(), args.end(),
                               [](const std::string& a) { return a == "--resume" || a.starts_with("--resume="); });
  if (at == args.end() || args.size() < 2 || (args[1] != "run" && args[1] != "compare")) return args;
  const bool joined = at->starts_with("--resume=");
  const std::size_t resume_args = joined ? 3u : 4u;
  const bool trust = args.size() == resume_args + 1 && args.back() == "--trust-stored-command";
  if (at != args.begin() + 2 || args.size() != resume_args + (trust ? 1 : 0))
    throw UsageError(
        fmt::format("abench {} --resume DIR takes no other options but --trust-stored-command: the run "
                    "goes on with the options it was started with",
                    args[1]));
  resume->dir = joined ? at->substr(9) : args[3];
  if (resume->dir.empty()) throw UsageError("--resume: name the directory of the interrupted run");
  StoredCommand stored = resume_command_line(resume->dir, args[1], args[0]);
  resume->untrusted_because = trust ? "" : stored.unrecorded_because;
  // What is about to run, before it runs: the command as stored, and who vouches for it.
  std::string shown;
  for (std::size_t i = 1; i < stored.args.size(); ++i) shown += " " + printable(stored.args[i]);
  fmt::print(stderr, "resuming: abench{}\n  ({})\n", shown,
             trust ? "trusted: --trust-stored-command"
             : stored.unrecorded_because.empty()
                 ? "the command abench started there on this machine"
                 : "not vouched for: " + stored.unrecorded_because + "; it may run only abench's own workers");
  return std::move(stored.args);
}

}  // namespace abench
