// Every reader of input from outside abench as a target that takes bytes: JSON files
// (read_json_file), matrices, variant specs, gate rules, results files (and the gate's pairing
// and verdict on them), noise files, gate and compare verdict files, and the worker protocol
// (lines a worker could write, fed through the orchestrator with a fake launcher, then written
// as results.json and results.csv). Shared by libFuzzer (readers_fuzz.cc, scripts/fuzz) and the
// suite's mutation run (tests/reader_mutations_test.cc).
//
// A reader may refuse its input with UsageError (exit 2 for the user); any other exception, a
// crash or a sanitizer report is a finding.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace abench::fuzz {

using Target = std::function<void(const std::string&)>;

// By name: json, matrix, variant, gate, results, noise, gate-verdict, compare, protocol.
const std::map<std::string, Target>& reader_targets();

// The results.json of a small run (the protocol target's plan) whose workers measured every
// cell: a seed for the results target in this build's format.
std::string results_file_of_a_small_run();

}  // namespace abench::fuzz
