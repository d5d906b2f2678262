// Which interrupted runs abench itself started on this machine (docs/security.md, "What a
// record proves"). `--resume DIR` runs the command stored in DIR/results.json; a directory
// handed over from elsewhere could name any code there. So each run abench starts leaves a
// record of its run id, its directory and its command line where no results directory reaches
// (the user's state directory), signed under a per-user key, in a store only this user can
// change; a resume runs code a stored command names only when such a record says abench wrote
// exactly that command into exactly that directory, or when the user says to trust it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace abench {

// $XDG_STATE_HOME/abench/runs, else $HOME/.local/state/abench/runs; none without either.
std::optional<std::filesystem::path> run_records_directory();

// Records the run. Where the store cannot be trusted or written, says so on stderr and goes on:
// the run's resume will have to be trusted by hand (`--trust-stored-command`).
void record_run_origin(const std::filesystem::path& dir, const std::string& run_id,
                       const std::vector<std::string>& command_line);

// Drops the record of a finished run (nothing is left to resume).
void forget_run_origin(const std::string& run_id);

// "" when abench recorded this run id with this directory and command line on this machine;
// otherwise why it cannot vouch for them, for the refusal's message.
std::string run_origin_unrecorded_because(const std::filesystem::path& dir, const std::string& run_id,
                                          const std::vector<std::string>& command_line);

}  // namespace abench
