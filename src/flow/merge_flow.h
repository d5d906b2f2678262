// abench merge as a workflow: the shards of one sharded run, compare, gate or calibrate
// (`--shard K/N`) joined into one results directory of the form the unsharded command
// writes (docs/ci.md); every table, verdict and export computed again from the joined data.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/flow/gate_rules.h"
#include "src/verdict/gate.h"

namespace abench {

struct MergeRequest {
  std::vector<std::string> dirs;
  OutputDirectory out;
  bool across_machines = false;
  bool no_report = false;
  std::string save_noise;  // calibrate's shards: the baseline whose floors the merge stores
  // The verdicts are judged again with these, never taken from a shard's files.
  GateRuleOptions gate;
  double confidence = 0.95;
  double min_effect_percent = 1.0;  // compare's shards
  double detect_percent = 3;        // compare's shards
  std::string baseline;             // gate's shards: the baseline they were gated against
};

struct MergeOutcome {
  std::size_t failed_cells = 0;
  std::optional<GateVerdict> gate;  // gate's shards (and compare --gate's)
};

MergeOutcome run_merge(const MergeRequest& request, const std::vector<std::string>& command_line);

}  // namespace abench
