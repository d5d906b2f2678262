// The gate of a sharded `compare --gate` or `gate` joined by abench merge (docs/ci.md): every
// cell judged again from the shards' measurements, by the rules on merge's own command line,
// never copied from a shard's gate.json. A shard's regressions are confirmed on the second
// run it stored (confirm/results.json), judged by the gate's own rule
// (src/verdict/gate_confirmation.h). A shard's gate.json is read only to check that it was
// judged by the same rules and confidence: a difference is refused, so the merged verdict is
// the one the shards' own command lines would give, and editing a shard's file can only make
// the merge refuse.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "src/merge/shards.h"
#include "src/results/results.h"
#include "src/verdict/gate.h"

namespace abench {

struct MergedGateRules {
  GateRules rules;
  std::map<std::string, double> noise;
  VerdictSettings settings;
  std::optional<RunResults> baseline;  // merge --baseline: needed by shards gated on stored figures
  std::string baseline_path;
};

// UsageError naming the shard's file and field before anything is written.
GateVerdict judge_merged_gate(const std::vector<ShardResults>& shards, const RunResults& merged,
                              const MergedGateRules& judging);

}  // namespace abench
