// Before anything runs, every variant's worker is started once with --self-check (and its
// plugin, preload, exe and environment), so a missing or unloadable plugin, a preload
// that does not serve malloc, or an executable that is not an abench worker of this
// protocol version is a usage error (exit 2), not a run full of failed cells.
#pragma once

#include <vector>

#include "src/run/launcher.h"
#include "src/plan/variant.h"

namespace abench {

// Throws UsageError naming the variant and what its worker said.
void preflight_variants(const std::vector<Variant>& variants, bool counts, WorkerLauncher& launcher);

}  // namespace abench
