// Everything about the machine that shapes a number, recorded with every run: CPU model
// and count, kernel, libc, frequency governor, turbo, hypervisor, abench's own build.
// What cannot be read is recorded as null, never guessed.
#pragma once

#include <nlohmann/json.hpp>

namespace abench {

nlohmann::json collect_conditions();

// Conditions that make timings less trustworthy, each with a hint: hypervisor, frequency
// governor, turbo, ASLR (when the workers keep it: workers_randomized), a pinned CPU that is not
// isolated or is busy.
std::vector<std::string> environment_warnings(const nlohmann::json& conditions, int pinned_cpu,
                                              bool workers_randomized);

}  // namespace abench
