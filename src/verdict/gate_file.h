// gate.json, written and read back (abench merge joins the shards' verdicts, abench report
// draws them): the gate's one codec. The reader validates what it reads (outcome names,
// finite figures, intervals that hold their change, the confidence) and recounts the
// verdict from the cells' outcomes, never from the file's totals.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "src/verdict/gate.h"

namespace abench {

nlohmann::json gate_json(const GateVerdict& verdict);

// UsageError naming path and the field.
GateVerdict gate_verdict_from_json(const nlohmann::json& json, const std::string& path);

}  // namespace abench
