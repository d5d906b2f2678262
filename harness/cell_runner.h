// Runs one cell inside a worker: a verification pass, then the sampler over the timed loop.
#pragma once

#include <string>

#include "harness/protocol.h"

namespace abench {

// Builds the cell's buffers once through a CheckedAllocator and checks length, contents,
// alignment and capacity. Returns "" when all is well, else what was wrong.
std::string verify_cell(const CellSpec& cell, const char* allocator_name);

// verify_cell, then (if it passed) the timed samples. Never throws.
CellReport run_cell(const CellSpec& cell, const SamplerConfig& sampler, bool touch,
                    const char* allocator_name);

}  // namespace abench
