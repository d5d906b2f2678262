// The counting run of a cell, inside a counting worker: a few buffer lifetimes under the
// counting layers (harness/counters.h), never timed.
#pragma once

#include "allocators/entry_sets.h"
#include "harness/plugin.h"
#include "harness/protocol.h"

namespace abench {

inline constexpr int kCountingIterations = 3;

// Never throws; a failure is reported in the result.
// `entry`: the backend's entry-point set, the same the timed run calls.
CellCounts count_cell(const CellSpec& cell, bool touch, const LoadedPlugin* plugin, EntrySet entry);

}  // namespace abench
