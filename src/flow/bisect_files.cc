#include "src/flow/bisect_files.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "src/util/atomic_file.h"
#include "src/util/comment_markdown.h"
#include "src/util/text.h"

namespace abench {
namespace {

std::string percent(const Judgement& j) {
  return fmt::format("{:+.2f}% [{:+.2f}%, {:+.2f}%]", j.change * 100, j.low * 100, j.high * 100);
}

nlohmann::json judgement_json(const Judgement& j) {
  return {{"change", j.change}, {"interval", {j.low, j.high}}, {"call", name_of(j.call)}};
}

nlohmann::json step_json(const BisectStep& s, bool ends) {
  nlohmann::json cells = nlohmann::json::array();
  for (const BisectCell& c : s.cells) {
    nlohmann::json cell{{"cell", c.cell}};
    if (ends) {
      cell["change"] = judgement_json(c.against_good);
    } else {
      cell["against_good"] = judgement_json(c.against_good);
      cell["against_bad"] = judgement_json(c.against_bad);
    }
    cells.push_back(std::move(cell));
  }
  return {{"step", s.number},
          {"commit", s.commit},
          {"subject", s.subject},
          {"role", s.role},
          {"result", ends ? "ends" : name_of(s.state)},
          {"why", s.why},
          {"dir", s.dir},
          {"cells", cells}};
}

}  // namespace

std::string_view name_of(CommitState state) {
  switch (state) {
    case CommitState::untested: return "untested";
    case CommitState::good: return "good";
    case CommitState::bad: return "bad";
    case CommitState::unknown: return "unknown";
    case CommitState::skipped: return "skipped";
  }
  return "?";
}

void write_bisect_json(const BisectRecord& r, const std::filesystem::path& dir, bool complete) {
  nlohmann::json steps = nlohmann::json::array(), skipped = nlohmann::json::array();
  for (std::size_t i = 0; i < r.steps.size(); ++i) {
    steps.push_back(step_json(r.steps[i], i == 0));
    if (r.steps[i].state == CommitState::skipped)
      skipped.push_back({{"commit", r.steps[i].commit}, {"why", r.steps[i].why}});
  }
  const bool answered = complete && r.changed;
  const nlohmann::json json{{"schema", "abench.bisect"},
                            {"schema_version", 1},
                            {"complete", complete},
                            {"repo", r.repo},
                            {"build", r.build},
                            {"spec", r.spec},
                            {"good", r.good},
                            {"bad", r.bad},
                            {"changed", r.changed},
                            {"ends", r.ends},
                            {"first_bad", answered && r.found ? nlohmann::json(r.first_bad_or_range_end) : nullptr},
                            {"last_good", answered ? nlohmann::json(r.last_good) : nullptr},
                            {"range", r.range},
                            {"skipped", skipped},
                            {"compares", r.compares},
                            {"seconds", r.seconds},
                            {"steps", steps}};
  write_file_atomically(dir / "bisect.json", json.dump(2) + "\n");
}

void write_bisect_files(const BisectRecord& r, const std::filesystem::path& dir) {
  write_bisect_json(r, dir, true);

  std::string headline;
  if (r.ends == "unclear")
    headline = fmt::format(
        "### abench bisect: {} and {} could not be told apart, nor shown alike\n\nNo cell was "
        "called slower or faster at the two ends (step 1), and some were not shown the same: a "
        "change could hide in their intervals. More rounds (--max-rounds, --until-interval) or a "
        "quieter machine narrow them; nothing was bisected.",
        short_hash(r.good), short_hash(r.bad));
  else if (!r.changed)
    headline = fmt::format(
        "### abench bisect: no change between {} and {}\n\nNo cell measured differently at the "
        "two ends (step 1), so there is no commit to find.",
        short_hash(r.good), short_hash(r.bad));
  else if (r.found) {
    std::string subject;
    for (const BisectStep& s : r.steps)
      if (s.commit == r.first_bad_or_range_end) subject = s.subject;
    headline = fmt::format(
        "### abench bisect: first bad commit {}\n\n**{}** {}: the last good commit is its "
        "parent {}. {} compares in {} s.",
        short_hash(r.first_bad_or_range_end), r.first_bad_or_range_end, markdown_text(subject), short_hash(r.last_good),
        r.compares, r.seconds);
  } else {
    headline = fmt::format(
        "### abench bisect: the change is in {} commits after {}, up to {}\n\nThe commits "
        "between could not be called good or bad (skipped or unknown, below): the evidence "
        "allows no smaller range. {} compares in {} s.",
        r.range.size() + 1, short_hash(r.last_good), short_hash(r.first_bad_or_range_end), r.compares, r.seconds);
  }
  std::vector<CommentSection> sections;
  if (r.found)
    for (const BisectStep& s : r.steps)
      if (s.role == "tested" && s.commit == r.first_bad_or_range_end) {
        CommentSection made = shown_section(fmt::format(
            "What {} measures like (its build over the good build and over the bad one − 1)", short_hash(s.commit)));
        made.table.push_back({"cell", "against good", "against bad"});
        for (const BisectCell& c : s.cells)
          made.table.push_back({c.cell, percent(c.against_good), percent(c.against_bad)});
        sections.push_back(std::move(made));
      }
  CommentSection change = shown_section("The change between the ends (step 1: bad over good − 1)");
  change.table.push_back({"cell", "change", "call"});
  for (const BisectCell& c : r.steps.front().cells)
    change.table.push_back({c.cell, percent(c.against_good), std::string(name_of(c.against_good.call))});
  change.numeric = {false, false, false};
  sections.push_back(std::move(change));
  CommentSection steps_section =
      shown_section("Steps (each tested build over the good build and over the bad one − 1)");
  steps_section.table.push_back({"step", "commit", "subject", "result", "cell", "against good", "against bad", "why"});
  for (std::size_t i = 1; i < r.steps.size(); ++i) {
    const BisectStep& s = r.steps[i];
    const std::string first_cell = s.cells.empty() ? "-" : s.cells.front().cell;
    steps_section.table.push_back(
        {std::to_string(s.number), short_hash(s.commit), markdown_text(s.subject), std::string(name_of(s.state)),
         first_cell, s.cells.empty() ? "-" : percent(s.cells.front().against_good),
         s.cells.empty() ? "-" : percent(s.cells.front().against_bad), markdown_text(s.why.substr(0, 200))});
  }
  if (r.steps.size() == 1) steps_section.before = "No commit was tested.";
  sections.push_back(std::move(steps_section));
  write_file_atomically(dir / "bisect.md", comment_markdown(headline, sections, "bisect.json"));
}

}  // namespace abench
