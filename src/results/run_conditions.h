// The conditions of a run: what abench decided about where things ran, and what the verdicts
// read (the machine's fingerprint and architecture, the warnings), typed; everything else
// recorded about the machine (src/machine/conditions.h: CPU model, kernel, libc, governor,
// build, ...) kept beside them as free-form facts, which are data to show, never decisions.
// results.json holds both in one object, "conditions".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/util/json_field.h"

namespace abench {

struct RunConditions {
  std::vector<int> allowed_cpus;       // the CPUs abench was allowed, as it started
  std::vector<int> orchestrator_cpus;  // where abench itself ran (off the measured CPU)
  std::optional<int> counting_cpu;     // counting runs beside the timed rounds; none: they went first
  std::vector<int> start_ahead_cpus;   // where paced pairs started up ahead of their turn
  std::string architecture;            // uname's machine ("" where a file did not say)
  std::string machine_fingerprint;     // src/machine/conditions.cc ("" where a file did not say)
  std::vector<std::string> warnings;   // what makes these timings less trustworthy, with hints
  // Each resumption's start: [{at, conditions}], in order; null: never resumed.
  nlohmann::json resumed;
  nlohmann::json facts = nlohmann::json::object();  // the rest, as collected

  // The CPU the workers pin to where none is named: the last one allowed (-1: none known).
  int last_allowed_cpu() const { return allowed_cpus.empty() ? -1 : allowed_cpus.back(); }
};

// The typed fields lifted out of what collect_conditions() recorded; the rest are facts.
RunConditions conditions_from_facts(nlohmann::json collected);

// results.json's "conditions" object, and back (UsageError naming the field).
nlohmann::json conditions_to_json(const RunConditions& conditions);
RunConditions conditions_from_json(const JsonField& field);

}  // namespace abench
