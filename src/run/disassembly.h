// A function's machine code as objdump (binutils; the cross objdump for another
// architecture's objects) lists it, with what it calls or jumps to at a function's start in
// the same object, two calls deep: --explain's hot path (src/run/hot_path.h).
#pragma once

#include <string>
#include <vector>

#include "harness/protocol.h"

namespace abench {

struct ToolOutput {
  bool ok = false;
  std::string out, problem;
};

// Runs a tool (never through a shell) and keeps its output; ok when it exits with at most
// ok_exit_codes (diff's 1: the files differ).
ToolOutput run_tool(const std::string& tool, std::vector<std::string> arguments, int ok_exit_codes = 0);

ToolOutput disassemble(const EntryFunction& f);

}  // namespace abench
