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
// With `instructions`, the timed samples are replaced by one instruction count of a fixed
// number of operations under callgrind (harness/instruction_counter.h).
CellReport run_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch,
                    const char* allocator_name, const LoadedPlugin* plugin = nullptr,
                    bool instructions = false);

}  // namespace abench
