// Reading callgrind's output files (valgrind's "Callgrind Format Specification") for the cost
// of each instruction: dumps written with --dump-instr=yes give positions by instruction
// address, relative to the object (ob=) that holds it, as objdump shows them. The hot path
// annotates each listed instruction with its share of the counted instructions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace abench {

// Self instructions (Ir) by object file and by address in it.
using InstructionCosts = std::map<std::string, std::map<std::uint64_t, std::uint64_t>>;

// Adds the dump's self Ir per instruction into `into`; returns the dump's Ir in all (0 for a
// dump without instruction positions or without Ir).
std::uint64_t add_instruction_costs(std::string_view dump, InstructionCosts& into);

}  // namespace abench
