// Reading a results.json back (from run or compare) for the gate: every cell's identity,
// status and per-process samples, validated with errors that name the file and field.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/stats/statistics.h"

namespace abench {

struct StoredCell {
  std::string key;     // "backend/policy/workload/size/R:P/live": what a cell is, across files
  std::string variant;  // the variant's label in its file
  std::string side;     // "baseline"/"candidate" in a compare's results, "" in a run's
  std::string status;
  std::string metric;   // "ns_per_op" or "instructions_per_op"
  ProcessSamples samples;
  std::vector<int> rounds;  // each process's round, as samples
};

struct StoredResults {
  std::string path;
  std::string machine_fingerprint;
  std::string matrix_name;
  std::uint64_t seed = 0;  // the run's cell-order seed
  std::string started_at;
  std::string run_id;      // which run: cells of one run can be paired by round (files before it: started_at)
  bool interleave_batches = false;  // its pairs took turns batch by batch: samples pair index by index
  std::vector<StoredCell> cells;
  nlohmann::json conditions;
  nlohmann::json json;  // the whole file, for what the gate needs beyond the cells
};

// Throws UsageError: unreadable, malformed JSON (line and column), not an abench results
// file, another schema version, a field missing or of the wrong type.
StoredResults load_results_file(const std::string& path);
StoredResults results_from_json(const nlohmann::json& json, const std::string& path);

// The key of a cell as results.json spells it.
std::string cell_key(const nlohmann::json& cell);


// Noise floors written by abench calibrate: {"schema": "abench.noise", "cells": {key: floor}}.
std::map<std::string, double> load_noise_file(const std::string& path);

}  // namespace abench
