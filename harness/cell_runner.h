// Runs one cell inside a worker: a verification pass, then the sampler over the timed loop.
// The subject is the built-in buffer model over the worker's backend, or a plugin's
// subject (harness/plugin.h).
#pragma once

#include <string>

#include "allocators/entry_sets.h"
#include "harness/plugin.h"
#include "harness/protocol.h"

namespace abench {

// Builds the cell's buffers once through a checking allocator and checks length,
// contents, alignment and capacity. Returns "" when all is well, else what was wrong.
// `entry`: the backend's entry-point set (allocators/entry_sets.h), the same the timed
// loop then calls.
std::string verify_cell(const CellSpec& cell, const char* allocator_name, const LoadedPlugin* plugin, EntrySet entry);

// verify_cell, then (if it passed) the timed samples. Never throws.
// Measure::instructions replaces the timed samples by one instruction count of a fixed
// number of operations under callgrind (harness/instruction_counter.h); the perf measures
// read their event group around every timed batch (harness/perf_counters.h), and the
// leader event per operation becomes the samples.
// What the entry-point set calls for each operation, in words (recorded with every result).
std::string entry_calls(EntrySet entry);
// The allocator's symbols among them, space-separated (allocators/calls/*.h kFunctions).
const char* entry_functions(EntrySet entry);

CellReport run_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch, const char* allocator_name,
                    const LoadedPlugin* plugin, Measure measure, EntrySet entry);

}  // namespace abench
