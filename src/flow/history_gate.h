// gate --history: each cell of the gated run judged against its own history where the store
// holds enough runs like it since the cell's last change point (docs/history.md, "A gate with
// a memory"); the other cells keep the baseline's verdict.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "src/plan/matrix.h"
#include "src/plan/plan.h"
#include "src/verdict/gate.h"

namespace abench {

struct HistoryGating {
  std::string store;
  std::filesystem::path dir;  // holds the gated run's results.json
  std::string commit;         // the one it measured: its runs (a gate run again) are no evidence about it
  // A run the gate measured: its regressions against the history are measured a second time
  // with this matrix. Null for a run read back (gate --candidate), counts (they repeat
  // exactly) or --no-confirm.
  const Matrix* matrix_to_confirm = nullptr;
  const Plan* plan_to_confirm = nullptr;  // the plan the gate ran, with its jobs
  std::vector<std::string> command_line;
};

// Judges the cells with a history, confirms their regressions, recounts, and adds a note
// saying how many cells were judged by their history.
void judge_with_history(GateVerdict& verdict, const HistoryGating& gating);

}  // namespace abench
