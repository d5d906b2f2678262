// Deterministic mode (--measure instructions): the worker runs under valgrind's callgrind
// with collection off; each cell switches it on around a fixed number of operations only
// (client requests from valgrind/callgrind.h), dumps, and reads its own dump back.
// Instructions (Ir), data reads and writes (Dr, Dw), L1 and last-level data misses
// (D1mr + D1mw, DLmr + DLmw), branches and their mispredictions (Bc + Bi, Bcm + Bim) per
// operation are the same on every run for the same binaries: callgrind simulates the caches
// and the branch predictor (--cache-sim=yes --branch-sim=yes), it does not read the CPU's. System calls are not
// counted: mmap and page-fault costs vanish, which is why cells served by mmap, and --touch, are refused
// (instruction_refusal_reason).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "harness/protocol.h"

namespace abench {

inline constexpr std::uint64_t kInstructionModeOperations = 256;
// From this capacity on, allocators serve a buffer with mmap/munmap (glibc's default
// M_MMAP_THRESHOLD is 128 KiB), whose cost callgrind cannot see.
inline constexpr std::size_t kInstructionModeMaxBytes = 128 * 1024;

// Why a cell cannot be measured honestly in this mode, or "".
std::string instruction_refusal_reason(const CellSpec& cell, bool touch);

// "" when this process runs under callgrind and its client requests work; else why not.
std::string instruction_counting_unavailable();

struct InstructionCount {
  std::uint64_t instructions = 0;                 // Ir
  std::uint64_t data_reads = 0, data_writes = 0;  // Dr, Dw (0 without --cache-sim)
  std::uint64_t l1_misses = 0, ll_misses = 0;     // data misses: D1mr + D1mw, DLmr + DLmw
  std::uint64_t branches = 0, branch_misses = 0;  // Bc + Bi, Bcm + Bim (0 without --branch-sim)
};

// The simulated events beside the instructions, by the names results files give them
// (counters_per_op), each with its count.
struct SimulatedEvent {
  const char* name;
  std::uint64_t InstructionCount::*count;
};
inline constexpr SimulatedEvent kSimulatedEvents[] = {
    {"data_reads", &InstructionCount::data_reads}, {"data_writes", &InstructionCount::data_writes},
    {"l1_misses", &InstructionCount::l1_misses},   {"ll_misses", &InstructionCount::ll_misses},
    {"branches", &InstructionCount::branches},     {"branch_misses", &InstructionCount::branch_misses}};

// Runs `region` with collection on, dumps and parses the dump. Throws std::runtime_error.
InstructionCount count_region(const std::function<void()>& region, int cell_id);

}  // namespace abench
