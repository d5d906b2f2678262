// A regression must reproduce (docs/ci.md). The pairs of variants holding a regressed cell
// are measured again (another run of their rounds, same cell orders), and each of their
// cells is judged again twice by the same rule: on the second run's rounds alone, and on
// both runs' rounds pooled. A cell stays a regression only when both call it one: the second
// run is an independent replication, so a cell that one run's noise pushed over its
// threshold must be pushed over again by chance (a false alarm rate of p becomes about p
// squared, which keeps a table of 144 cells from failing on nothing;
// tests/change_rule_test.cc), and the pooled rounds give the figures the table shows. Cells
// of other variants keep their first verdict.
//
// The gate measures the second run (src/flow/gate_flow.cc); merge judges a shard's stored
// second run (its confirm/results.json) by the same functions, never copying a verdict.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "src/results/results.h"
#include "src/verdict/gate.h"
#include "src/verdict/pairing.h"

namespace abench {

// The pairs a gate judges in one interleaved run: both sides of every cell but those neither
// side could measure, each cell key once (UsageError naming `path` otherwise).
std::vector<CellPair> gate_pairs(const RunResults& results, const std::string& path);

struct Confirmation {
  std::set<std::string> suspects;      // the cells the first run called regressions
  std::set<std::size_t> variants;      // both sides of every variant pair holding one
  std::set<std::string> judged_again;  // every cell of those pairs
};

Confirmation regressions_to_confirm(const GateVerdict& first, const RunResults& measured, const std::string& path);

// Judges the confirmation's cells again on `second` alone and on `measured` with its rounds
// pooled in, and keeps a regression only where both call it one; recounts and adds the note
// naming where the second run is (second_dir).
void judge_with_second_run(GateVerdict& verdict, RunResults& measured, const RunResults& second,
                           const Confirmation& confirmation, const GateRules& rules,
                           const std::map<std::string, double>& noise, const VerdictSettings& settings,
                           const std::string& path, const std::string& second_dir);

}  // namespace abench
