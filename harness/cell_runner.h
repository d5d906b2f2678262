// Runs one cell inside a worker: a verification pass, then the sampler over the timed loop.
// The subject is the built-in buffer model over the worker's backend, or a plugin's
// subject (harness/plugin.h).
#pragma once

#include <string>

#include "harness/plugin.h"
#include "harness/protocol.h"

namespace abench {

// Builds the cell's buffers once through a checking allocator and checks length,
// contents, alignment and capacity. Returns "" when all is well, else what was wrong.
std::string verify_cell(const CellSpec& cell, const char* allocator_name, const LoadedPlugin* plugin = nullptr);

// verify_cell, then (if it passed) the timed samples. Never throws.
// Measure::instructions replaces the timed samples by one instruction count of a fixed
// number of operations under callgrind (harness/instruction_counter.h); the perf measures
// read their event group around every timed batch (harness/perf_counters.h), and the
// leader event per operation becomes the samples.
CellReport run_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch,
                    const char* allocator_name, const LoadedPlugin* plugin = nullptr,
                    Measure measure = Measure::time);

}  // namespace abench
