// abench bisect (docs/bisect.md): the commit between a good and a bad one of a library's git
// history where a change came in, each step a paired compare of the tested commit's build
// against the good build and the bad one in one interleaved run, never a guess.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "src/flow/output_directory.h"
#include "src/plan/measure_options.h"

namespace abench {

struct BisectRequest {
  MeasureOptions measure;  // the cells (a matrix, --workload, --size, ...) and the protocol
  std::string repo, good, bad;
  std::string build;         // the command, with {src} and {out}
  std::string spec;          // the variant each build is measured as, with {out}
  OutputDirectory out;       // default results/<time>-bisect
  std::string build_cache;   // default default_build_cache()
  std::string resume;        // --resume DIR: the interrupted bisect in DIR goes on (the same command)
  std::string from_history;  // --from-history STORE: good, bad and the cell from change point `change`
  int change = 0;
  double confidence = 0.95;
  int max_steps = 0;  // commits tested at most (0: default_max_tests, src/flow/bisect_search.h)
};

struct BisectOutcome {
  bool changed = false;                  // good and bad differ in some cell
  bool ends_alike = true;                // not changed: every cell shown the same (else unclear)
  std::optional<std::string> first_bad;  // the full hash, when the evidence names one commit
  int compares = 0;
  int exit_code()
      const;  // 0: a first bad commit, or the ends alike; 3: the evidence leaves a range, or the ends unclear
};

// Builds, measures, writes bisect.md and bisect.json (and each step's compare) into the
// output directory. UsageError for bad input (exit 2).
BisectOutcome run_bisect(const BisectRequest& request, const std::vector<std::string>& command_line);

}  // namespace abench
