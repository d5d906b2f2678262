// bisect --from-history STORE --change N: the good and bad commits and the cell of a change
// point, as `history changes --history STORE` at its defaults lists it (changes.csv's row N).
#pragma once

#include "src/flow/bisect_flow.h"

namespace abench {

// Fills the request's --good, --bad and cell options from the change point (UsageError for a
// row that is not there, one where the measuring abench changed, or --good/--bad given too).
void take_change_point(BisectRequest& request);

}  // namespace abench
