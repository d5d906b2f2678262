// What a cell is expected to cost under a protocol, in seconds of this project's workers:
// balances shards (src/plan/shard.h) and estimates the time a run has left
// (src/run/progress.h). Only relative costs need be right; the constants are fitted on the
// development VM (src/plan/cost.cc).
#pragma once

#include <vector>

#include "harness/protocol.h"
#include "src/plan/matrix.h"
#include "src/plan/plan.h"

namespace abench {

// One process's measurement of the cell: its warm-up and timed batches, and its start when
// every cell has a process of its own.
double expected_timed_seconds(const CellSpec& cell, const RunProtocol& protocol);
// The cell's counting run (0 without counts).
double expected_counting_seconds(const CellSpec& cell, const RunProtocol& protocol);
// All of a cell: every process's measurement and its counting run.
double expected_cell_seconds(const CellSpec& cell, const RunProtocol& protocol);

// The expected seconds of the first k measurements of `jobs` in launch order, k = 0..all:
// what the progress line scales the elapsed time by.
std::vector<double> cumulative_expected_seconds(const Plan& plan, const std::vector<Job>& jobs,
                                                const RunProtocol& protocol);

}  // namespace abench
