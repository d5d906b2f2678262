// Joining the shards of one plan (`abench merge`, docs/ci.md): reading each shard's
// results.json, refusing shards that are not the N parts of one plan measured alike, and
// laying their cells into results of the whole plan, as an unsharded run would have them.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/results/results.h"

namespace abench {

struct ShardResults {
  std::filesystem::path dir;
  std::string path;    // the results.json read
  RunResults results;  // as the one reader decodes it (src/results/results_reader.h)
  // results_to_json(results): the checked results in the file's form, which the shards'
  // matrix, protocol, variants and conditions are compared in, field by field.
  nlohmann::json canonical;
  int index = 0, count = 0;
  std::string command;  // run, compare, gate or calibrate
};

// DIR/results.json, or for a calibrate shard DIR/run1/results.json. UsageError when it is
// unreadable, not abench results, not a shard, or not finished.
ShardResults read_shard(const std::filesystem::path& dir);

// UsageError, naming the files and the field, unless the shards are every shard 1..N of one
// plan exactly once, of one command, matrix, protocol (seed included), abench version,
// variants and entry-point sets, and (unless across_machines) measured on one machine.
void check_shards_belong_together(const std::vector<ShardResults>& shards, bool across_machines);

// The whole plan's results from checked shards: every cell where the unsharded run would
// have it, with the shard and machine that measured it; the workers of every shard; the
// conditions of the first shard, their warnings from all. `merge_command_line`: how the
// merge was asked for (kept in results.json's "merge").
RunResults merge_shards(const std::vector<ShardResults>& shards, const std::vector<std::string>& merge_command_line);

// The shard's command line as the unsharded command would read: without --shard and --out.
std::vector<std::string> unsharded_command_line(const std::vector<std::string>& command_line);

}  // namespace abench
