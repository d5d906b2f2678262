#include "src/run/run_origin.h"

#include <cstdlib>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/util/atomic_file.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"

namespace abench {
namespace {

// A run id is abench's own 16 hex digits; anything else never names a file.
bool is_run_id(const std::string& id) {
  return !id.empty() && id.size() <= 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::string absolute_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(dir, ec);
  return (ec ? std::filesystem::absolute(dir) : canonical).string();
}

}  // namespace

std::optional<std::filesystem::path> run_records_directory() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/')
    return std::filesystem::path(state) / "abench" / "runs";
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    return std::filesystem::path(home) / ".local" / "state" / "abench" / "runs";
  return std::nullopt;
}

void record_run_origin(const std::filesystem::path& dir, const std::string& run_id,
                       const std::vector<std::string>& command_line) {
  const auto records = run_records_directory();
  if (!records || !is_run_id(run_id)) return;
  std::error_code ec;
  std::filesystem::create_directories(*records, ec);
  if (ec) return;
  // Only its owner may add records: one written by someone else would vouch for their command.
  std::filesystem::permissions(*records, std::filesystem::perms::owner_all, ec);
  const nlohmann::json record = {{"directory", absolute_directory(dir)}, {"command_line", command_line}};
  try {
    write_file_atomically(*records / (run_id + ".json"), record.dump() + "\n", 0600);
  } catch (const EnvironmentError&) {
  }
}

void forget_run_origin(const std::string& run_id) {
  const auto records = run_records_directory();
  if (!records || !is_run_id(run_id)) return;
  std::error_code ec;
  std::filesystem::remove(*records / (run_id + ".json"), ec);
}

std::string run_origin_unrecorded_because(const std::filesystem::path& dir, const std::string& run_id,
                                          const std::vector<std::string>& command_line) {
  const auto records = run_records_directory();
  if (!records) return "neither XDG_STATE_HOME nor HOME is set, so abench keeps no record of its runs";
  if (!is_run_id(run_id)) return fmt::format("its run id '{}' is not one abench makes", run_id);
  const std::filesystem::path path = *records / (run_id + ".json");
  std::error_code ec;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec)))
    return fmt::format("abench has no record of starting run {} on this machine ({})", run_id, path.string());
  try {
    const nlohmann::json record = read_json_file(path.string(), "a record of a run");
    if (record.at("directory").get<std::string>() != absolute_directory(dir))
      return fmt::format("run {} was started by abench in {}, not here", run_id,
                         record.at("directory").get<std::string>());
    if (record.at("command_line").get<std::vector<std::string>>() != command_line)
      return fmt::format("the command line stored there is not the one abench started run {} with", run_id);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const nlohmann::json::exception& e) {
    return fmt::format("{}: not a record abench wrote: {}", path.string(), e.what());
  }
  return "";
}

}  // namespace abench
