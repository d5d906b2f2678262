#include "src/results/run_conditions.h"

#include <climits>

namespace abench {
namespace {

constexpr int kMostCpus = 1 << 20;  // a CPU number past this is no CPU

constexpr const char* kTypedKeys[] = {"allowed_cpus", "orchestrator_cpus",   "counting_cpu", "start_ahead_cpus",
                                      "architecture", "machine_fingerprint", "warnings",     "resumed"};

std::vector<int> cpus_of(const JsonField& f) {
  std::vector<int> cpus(f.size_of_list());
  for (std::size_t i = 0; i < cpus.size(); ++i) cpus[i] = f.at(i).whole(0, kMostCpus);
  return cpus;
}

}  // namespace

RunConditions conditions_from_facts(nlohmann::json collected) {
  return conditions_from_json(JsonField("the collected conditions", collected, "conditions", "conditions"));
}

nlohmann::json conditions_to_json(const RunConditions& c) {
  nlohmann::json j = c.facts;
  j["allowed_cpus"] = c.allowed_cpus;
  j["orchestrator_cpus"] = c.orchestrator_cpus;
  j["counting_cpu"] = c.counting_cpu ? nlohmann::json(*c.counting_cpu) : nlohmann::json(nullptr);
  j["start_ahead_cpus"] = c.start_ahead_cpus;
  j["architecture"] = c.architecture;
  j["machine_fingerprint"] = c.machine_fingerprint;
  j["warnings"] = c.warnings;
  if (!c.resumed.is_null()) j["resumed"] = c.resumed;
  return j;
}

RunConditions conditions_from_json(const JsonField& f) {
  if (!f.json().is_object()) f.fail("must be an object");
  RunConditions c;
  if (f.has("allowed_cpus")) c.allowed_cpus = cpus_of(f.at("allowed_cpus"));
  if (f.has("orchestrator_cpus")) c.orchestrator_cpus = cpus_of(f.at("orchestrator_cpus"));
  if (f.has("counting_cpu")) c.counting_cpu = f.at("counting_cpu").whole(0, kMostCpus);
  if (f.has("start_ahead_cpus")) c.start_ahead_cpus = cpus_of(f.at("start_ahead_cpus"));
  if (f.has("architecture")) c.architecture = f.at("architecture").text();
  if (f.has("machine_fingerprint")) c.machine_fingerprint = f.at("machine_fingerprint").text();
  if (f.has("warnings")) c.warnings = f.at("warnings").texts();
  if (f.has("resumed")) {
    if (!f.json()["resumed"].is_array()) f.at("resumed").fail("must be a list");
    c.resumed = f.json()["resumed"];
  }
  c.facts = f.json();
  for (const char* key : kTypedKeys) c.facts.erase(key);
  return c;
}

}  // namespace abench
