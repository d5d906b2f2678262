// bisect.md (for the issue or pull request) and bisect.json: what abench bisect found and
// every step that found it (docs/bisect.md).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "src/flow/bisect_search.h"
#include "src/verdict/change_rule.h"

namespace abench {

std::string_view name_of(CommitState state);

// A commit's hash as tables show it: its first 12 digits.
inline std::string short_hash(const std::string& commit) { return commit.substr(0, 12); }

struct BisectCell {
  std::string cell;                     // policy/workload/size/R:P/live
  Judgement against_good, against_bad;  // the tested build over the good one, over the bad one, - 1
};

struct BisectStep {
  int number = 0;
  std::string commit, subject;
  std::string role;  // "bad against good" (the ends) or "tested"
  CommitState state = CommitState::untested;
  std::string why;  // skipped or unknown: the reason
  std::string dir;  // the step's compare ("" when it did not build)
  std::vector<BisectCell> cells;
};

struct BisectRecord {
  std::string repo, build, spec, good, bad;
  bool changed = false;
  std::string ends = "changed";  // the ends' compare: "changed", "same", or "unclear" (neither could be shown)
  bool found = false;            // last_good is the parent of first_bad_or_range_end
  std::string last_good, first_bad_or_range_end;
  std::vector<std::string> range;  // the commits between them, untested, skipped or unknown
  std::vector<BisectStep> steps;   // steps[0]: the ends
  int compares = 0;
  int seconds = 0;
};

// bisect.json; `complete` false: after each step, what --resume goes on from.
void write_bisect_json(const BisectRecord& record, const std::filesystem::path& dir, bool complete);
// bisect.md and the complete bisect.json.
void write_bisect_files(const BisectRecord& record, const std::filesystem::path& dir);

}  // namespace abench
