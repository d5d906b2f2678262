#include "src/run/run_origin.h"

#include <cstdlib>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/util/errors.h"
#include "src/util/owner_only_directory.h"
#include "src/util/signing_key.h"

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

// $XDG_STATE_HOME, else $HOME/.local/state.
std::optional<std::filesystem::path> state_directory() {
  if (const char* state = std::getenv("XDG_STATE_HOME"); state != nullptr && state[0] == '/')
    return std::filesystem::path(state);
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    return std::filesystem::path(home) / ".local" / "state";
  return std::nullopt;
}

// STATE/abench/runs and the key in STATE/abench, every directory on the way this user's alone
// and no link; nullopt when some part is not there and `create` is false.
struct RecordStore {
  OwnerOnlyDirectory runs;
  SigningKey key;
};

std::optional<RecordStore> open_store(const std::filesystem::path& state, bool create) {
  if (!create && !std::filesystem::is_directory(state)) return std::nullopt;
  const OwnerOnlyDirectory state_dir(state, create);
  const auto abench = state_dir.child("abench", create);
  if (!abench) return std::nullopt;
  auto key = SigningKey::in(*abench, create);
  auto runs = abench->child("runs", create);
  if (!key || !runs) return std::nullopt;
  return RecordStore{std::move(*runs), *key};
}

// What the record's MAC covers: everything it vouches for.
std::string signed_part(const std::string& run_id, const std::string& directory,
                        const std::vector<std::string>& command_line) {
  return nlohmann::json{
      {"abench_run_record", 1}, {"run_id", run_id}, {"directory", directory}, {"command_line", command_line}}
      .dump();
}

}  // namespace

std::optional<std::filesystem::path> run_records_directory() {
  const auto state = state_directory();
  if (!state) return std::nullopt;
  return *state / "abench" / "runs";
}

void record_run_origin(const std::filesystem::path& dir, const std::string& run_id,
                       const std::vector<std::string>& command_line) {
  const auto state = state_directory();
  if (!state || !is_run_id(run_id)) return;
  try {
    auto store = open_store(*state, /*create=*/true);
    const std::string directory = absolute_directory(dir);
    const nlohmann::json record = {{"directory", directory},
                                   {"command_line", command_line},
                                   {"mac", store->key.sign(signed_part(run_id, directory, command_line))}};
    store->runs.write_atomically(run_id + ".json", record.dump() + "\n");
  } catch (const std::runtime_error& e) {  // UsageError, EnvironmentError: the store cannot vouch
    fmt::print(stderr, "warning: no record of this run is kept, so its --resume will need --trust-stored-command: {}\n",
               e.what());
  }
}

void forget_run_origin(const std::string& run_id) {
  const auto state = state_directory();
  if (!state || !is_run_id(run_id)) return;
  try {
    if (auto store = open_store(*state, /*create=*/false)) store->runs.remove(run_id + ".json");
  } catch (const std::runtime_error&) {  // a store abench cannot trust holds no record of its
  }
}

std::string run_origin_unrecorded_because(const std::filesystem::path& dir, const std::string& run_id,
                                          const std::vector<std::string>& command_line) {
  const auto state = state_directory();
  if (!state) return "neither XDG_STATE_HOME nor HOME is set, so abench keeps no record of its runs";
  if (!is_run_id(run_id)) return fmt::format("its run id '{}' is not one abench makes", run_id);
  const std::filesystem::path path = *state / "abench" / "runs" / (run_id + ".json");
  const std::string none =
      fmt::format("abench has no record of starting run {} on this machine ({})", run_id, path.string());
  try {
    const auto store = open_store(*state, /*create=*/false);
    if (!store) return none;
    const auto text = store->runs.read(run_id + ".json", /*secret=*/false, 1 << 20);
    if (!text) return none;
    const nlohmann::json record = nlohmann::json::parse(*text);
    const auto directory = record.at("directory").get<std::string>();
    const auto line = record.at("command_line").get<std::vector<std::string>>();
    if (!record.contains("mac") || !record["mac"].is_string() ||
        !store->key.verifies(signed_part(run_id, directory, line), record["mac"].get<std::string>()))
      return fmt::format("{}: not a record abench wrote: it is not signed with this user's key", path.string());
    if (directory != absolute_directory(dir))
      return fmt::format("run {} was started by abench in {}, not here", run_id, directory);
    if (line != command_line)
      return fmt::format("the command line stored there is not the one abench started run {} with", run_id);
  } catch (const std::runtime_error& e) {  // UsageError, EnvironmentError: nothing here vouches
    return e.what();
  } catch (const nlohmann::json::exception& e) {
    return fmt::format("{}: not a record abench wrote: {}", path.string(), e.what());
  }
  return "";
}

}  // namespace abench
