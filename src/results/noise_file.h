// noise.json (docs/ci.md), written by abench calibrate and merge and read back by the gate:
// {"schema": "abench.noise", ..., "cells": {key: floor}}. Its one codec.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace abench {

struct NoiseFile {
  std::map<std::string, double> floors;             // cell key -> the largest |change| an unchanged build showed
  nlohmann::json about = nlohmann::json::object();  // how they were measured: method, runs, conditions, shard...
};

nlohmann::json noise_to_json(const NoiseFile& noise);

// Throws UsageError naming the file and the field: unreadable, not a noise file, a floor that
// is not a fraction from 0 to 10.
NoiseFile read_noise_file(const std::string& path);

// The floors alone, as the gate applies them.
std::map<std::string, double> load_noise_file(const std::string& path);

}  // namespace abench
