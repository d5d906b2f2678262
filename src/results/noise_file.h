// Noise floors written by abench calibrate (docs/ci.md): {"schema": "abench.noise",
// "cells": {key: floor}}, read back by the gate.
#pragma once

#include <map>
#include <string>

namespace abench {

// Throws UsageError naming the file and the field: unreadable, not a noise file, a floor that
// is not a fraction from 0 to 10.
std::map<std::string, double> load_noise_file(const std::string& path);

}  // namespace abench
