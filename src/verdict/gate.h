// The CI regression gate (docs/ci.md): each cell judged by the one rule
// (src/verdict/change_rule.h) with the cell's applied threshold as the smallest change it
// calls: a cell fails only when its change is significant and beyond that threshold, which
// is never below the cell's calibrated noise floor.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/verdict/compare.h"
#include "src/verdict/pairing.h"
#include "src/verdict/change_rule.h"

namespace abench {

inline constexpr int kExitRegression = 1;

struct GateRules {
  double threshold = 0.05;               // wall time: 5%
  double instruction_threshold = 0.005;  // instructions: 0.5%
  double noise_multiplier = 1.5;         // k in max(threshold, k x noise floor)
  std::map<std::string, double> workload_thresholds;
  std::vector<std::pair<std::string, double>> cell_thresholds;  // glob over the cell key, first match wins
  bool allow_unclear = false;  // --allow-unclear: a cell that could hide a regression passes
};

// A gate file: {"threshold_percent": 5, "instruction_threshold_percent": 0.5,
//  "noise_multiplier": 2, "workloads": {"append": 8},
//  "cells": [{"match": "jemalloc/*/grow/*", "threshold_percent": 10}]}. Throws UsageError.
GateRules load_gate_rules(const std::string& path);

// '*' matches any run of characters.
bool glob_match(std::string_view pattern, std::string_view text);

// undecided: measured, but too few rounds or processes for the confidence; like failed, it
// never passes. unclear: not called, but the interval reaches beyond the applied threshold
// on the slower side, so a regression the gate exists to catch could hide in it; it does
// not pass unless the rules allow it (--allow-unclear). A cell not called whose interval
// stays below the threshold passes: whatever it hides is smaller than a regression.
enum class GateOutcome { pass, regression, improvement, unclear, undecided, failed };
std::string_view name_of(GateOutcome outcome);

// What a cell judged by its history (gate --history) was judged against: the segment of its
// series since its last change point, runs like the one gated (docs/history.md).
struct HistoryBasis {
  int points = 0;
  std::string first_commit, last_commit;  // the segment's first and last run
  std::string change_commit;              // the commit the segment began with a change at; "" the series' start
  double segment_figure = 0;              // the geometric mean of the segment's figures
  double figure = 0;                      // the gated run's (with its confirmation: both runs' geometric mean)
  int runs = 1;                           // 2: the run and its confirmation
};

struct GateCell {
  std::string key;
  std::string metric;  // the figures judged (ns_per_op, instructions_per_op, ...)
  std::optional<Judgement> judgement;
  double threshold = 0;    // from the rules
  double noise_floor = 0;  // calibrated; 0 when none
  double applied = 0;      // max(threshold, k x noise floor)
  GateOutcome outcome = GateOutcome::failed;
  std::string problem;
  std::optional<HistoryBasis> history;  // set: judged against the history, not the baseline
};

struct GateVerdict {
  std::vector<GateCell> cells;
  double confidence = 0.95;  // of every cell's interval (VerdictSettings::confidence)
  int regressions = 0, improvements = 0, unchanged = 0, unclear = 0, undecided = 0, failed = 0;
  bool allow_unclear = false;  // unclear cells passed (GateRules::allow_unclear)
  int unclear_allowed = 0;     // cells passed only because unclear cells were allowed
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // how the baseline was measured, and what that showed
  int exit_code() const;  // 3 failed or undecided cells, 1 regressions, 3 unclear cells or no cell at all, else 0
};

GateVerdict evaluate_gate(const std::vector<CellPair>& pairs, const GateRules& rules,
                          const std::map<std::string, double>& noise_floors, const VerdictSettings& settings);

// A judged cell's outcome (and its problem) from its judgement's call.
void set_outcome(GateCell& cell, bool allow_unclear);

// Sets the counts from the cells' outcomes (after cells were judged again).
void recount(GateVerdict& verdict);

std::string gate_markdown(const GateVerdict& verdict);
std::string gate_summary_lines(const GateVerdict& verdict);

}  // namespace abench
