// Everything about the machine that shapes a number, recorded with every run: CPU model
// and count, kernel, libc, frequency governor, turbo, hypervisor, abench's own build.
// What cannot be read is recorded as null, never guessed.
#pragma once

#include <nlohmann/json.hpp>

namespace abench {

nlohmann::json collect_conditions();

}  // namespace abench
