// Before anything runs, every variant's worker is started once with --self-check (and its
// plugin, preload, exe and environment), so a missing or unloadable plugin, a preload
// that does not serve malloc, or an executable that is not an abench worker of this
// protocol version is a usage error (exit 2), not a run full of failed cells.
#pragma once

#include <string>
#include <vector>

#include "src/run/launcher.h"
#include "src/plan/variant.h"

namespace abench {

// Throws UsageError naming the variant and what its worker said.
void preflight_variants(const std::vector<Variant>& variants, bool counts, WorkerLauncher& launcher);

// The shared object serving malloc in each variant's timed worker, as its --self-check reports
// it, for the worker's fresh copies (LaunchRequest::fresh_copy_library): "" where that is the C
// library (the same file for every worker), no shared object, a worker built before abench
// made copies (it would refuse one), or the self-check fails (the run then reports that
// worker's failures as ever).
std::vector<std::string> allocator_libraries(const std::vector<Variant>& variants, WorkerLauncher& launcher);

// The timed loop (harness/timed_loop.h) each variant's timed worker names in its --self-check:
// "" where it names none (a build before abench named its loops) or the self-check fails.
std::vector<std::string> timed_loops(const std::vector<Variant>& variants, WorkerLauncher& launcher);

}  // namespace abench
