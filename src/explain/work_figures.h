// What a cell's operations do, beside how long they take (--explain): instructions, data
// reads and writes, simulated cache and branch misses per operation, counted under
// callgrind in instrumented processes of their own (never the timed ones), and the one rule
// that reads a time change beside them (docs/explain.md).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "src/results/results.h"

namespace abench {

// The instrumented pass (src/run/explain_pass.h): processes a variant, each with its own cell
// order, and where it writes its results under the run's directory.
inline constexpr int kExplainProcesses = 2;
inline constexpr const char* kExplainDirectory = "explain";

// The figures, by the names files give them: "instructions" and harness/instruction_counter.h's
// simulated events.
inline constexpr std::array<std::string_view, 7> kWorkFigureNames = {
    "instructions", "data_reads", "data_writes", "l1_misses", "ll_misses", "branches", "branch_misses"};
// The misses a reading names when they moved, with the words it uses.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kMissFigures = {
    {{"branch_misses", "branch misses"}, {"l1_misses", "L1 misses"}, {"ll_misses", "LL misses"}}};

struct WorkFigures {
  std::map<std::string, double, std::less<>> per_op;  // every name of kWorkFigureNames
  // How far the instrumented processes' instruction counts lay apart (each ran the cells in
  // its own order): (max - min) / median; 0 when they agree exactly.
  double repeatability = 0;
  double at(std::string_view figure) const;
};

// One compare row's figures, both sides.
struct PairExplanation {
  std::optional<WorkFigures> before, after;
  std::string unavailable;  // why a side has no figures ("" when both have them)
  std::string reading;      // reading_of, when both sides have figures ("": none)
};

// The cell's figures from an instrumented run (Measure::instructions), or nullopt when it has
// none (failed, refused).
std::optional<WorkFigures> work_figures_of(const CellRecord& instrumented);
// Why a cell has none (its refusal, its error; nullptr: the pass never reached it).
std::string why_no_work_figures(const CellRecord* instrumented);

// after / before - 1; nullopt when before is 0 (a change from nothing has no ratio).
std::optional<double> relative_change(double before, double after);

// Instructions moved when they changed by more than this, or by more than the two sides'
// repeatability where that is larger: "more work" or "less work".
inline constexpr double kWorkThreshold = 0.01;
// A miss figure moved when it changed by at least this many per operation.
inline constexpr double kMissesMoved = 0.05;

enum class TimeMove { none, slower, faster };  // the time verdict: called slower, faster, or neither

// The time's side of a reading: the verdict, and where it was called the change and its
// interval (fractions: +0.31 for 31% slower).
struct TimeChange {
  TimeMove move = TimeMove::none;
  double change = 0, low = 0, high = 0;
};

// The reading of one cell: "more work", "less work", "same work, slower (branch misses
// +0.80/op)", "same work, faster", or "" (time not called and instructions unmoved: tables
// show "-"). Where the work moved and the time was called, the time is weighed against it:
// when the time's interval leaves the time the instructions' change would make, the reading
// says how far above (or below) that the time lies, and the misses that moved: "more work
// (+3.1% instructions; time 27.1% above what it explains: L1 misses +0.80/op)", so that a
// change mostly not made of work is not read as work.
std::string reading_of(const TimeChange& time, const WorkFigures& before, const WorkFigures& after);
// The rule in words, for compare.md and compare.json.
std::string reading_rule_text();

}  // namespace abench
