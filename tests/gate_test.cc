#include <gtest/gtest.h>

#include <limits>

#include "src/util/errors.h"
#include "src/verdict/gate.h"
#include "src/verdict/gate_file.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "tests/synthetic_results.h"
#include "tests/temp_dir.h"
#include "src/verdict/pairing.h"
#include "src/verdict/segment_rule.h"

namespace abench {
namespace {

ProcessSamples around(double center, int processes = 5, int samples = 11) {
  ProcessSamples out;
  for (int p = 0; p < processes; ++p) {
    std::vector<double> s;
    for (int i = 0; i < samples; ++i) s.push_back(center * (1 + 0.002 * ((p * 7 + i * 3) % 5 - 2)));
    out.push_back(s);
  }
  return out;
}

CellPair pair(const std::string& key, double before, double after) {
  CellPair p;
  p.key = key;
  p.workload = key.substr(key.find('/', key.find('/') + 1) + 1);
  p.workload = p.workload.substr(0, p.workload.find('/'));
  p.before = around(before);
  p.after = around(after);
  return p;
}

TEST(Gate, GlobMatch) {
  EXPECT_TRUE(glob_match("jemalloc/*/grow/*", "jemalloc/exact/grow/64/1:256/1"));
  EXPECT_FALSE(glob_match("jemalloc/*/grow/*", "mimalloc/exact/grow/64/1:256/1"));
  EXPECT_TRUE(glob_match("*", "anything"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "x"));
  EXPECT_TRUE(glob_match("a*b*c", "aXbYc"));
  EXPECT_FALSE(glob_match("a*b*c", "aXbY"));
  EXPECT_TRUE(glob_match("*/64/*", "system/exact/allocate/64/1:256/1"));
  EXPECT_FALSE(glob_match("*/65/*", "system/exact/allocate/64/1:256/1"));
  // Many stars that cannot match: the recursive matcher took exponential time here.
  const std::string long_name(4000, 'a');
  EXPECT_FALSE(glob_match("********************x", long_name));
  EXPECT_FALSE(glob_match("*a*a*a*a*a*a*a*a*a*a*b", long_name));
  EXPECT_TRUE(glob_match("*a*a*a*a*a*a*a*a*a*a*", long_name));
  EXPECT_TRUE(glob_match("*/64/*", "system/exact/append/64/1:256/1"));
}

TEST(Gate, RegressionBeyondThresholdFailsUnchangedAndSmallChangesPass) {
  const GateVerdict v = evaluate_gate(
      {pair("system/exact/append/64/1:256/1", 100, 110), pair("system/exact/grow/64/1:256/1", 100, 102),
       pair("system/exact/allocate/64/1:256/1", 100, 100), pair("system/exact/zeroed/64/1:256/1", 100, 80)},
      GateRules{}, {}, VerdictSettings{});
  ASSERT_EQ(v.cells.size(), 4u);
  EXPECT_EQ(v.cells[0].outcome, GateOutcome::regression);  // +10% > 5%
  EXPECT_EQ(v.cells[1].outcome, GateOutcome::pass);        // +2%: significant but below 5%
  EXPECT_EQ(v.cells[2].outcome, GateOutcome::pass);
  EXPECT_EQ(v.cells[3].outcome, GateOutcome::improvement);
  EXPECT_EQ(v.regressions, 1);
  EXPECT_EQ(v.exit_code(), 1);
  EXPECT_NE(gate_summary_lines(v).find("regressions: 1\nimprovements: 1\nunchanged: 2\n"), std::string::npos);
}

// A cell not called whose interval reaches past the threshold on the slower side could hide
// the regression the gate is for: UNCLEAR, exit 3, unless --allow-unclear. One whose interval
// reaches past it only on the faster side hides at most an improvement: it passes.
TEST(Gate, ACellThatCouldHideARegressionIsUnclearUnlessAllowed) {
  auto processes_at = [](std::vector<double> medians) {
    ProcessSamples out;
    for (double m : medians) out.push_back(std::vector<double>(5, m));
    return out;
  };
  CellPair hides_slower = pair("system/exact/append/64/1:256/1", 100, 100);
  hides_slower.before = processes_at({100, 100, 100, 100, 100});
  hides_slower.after = processes_at({98, 100, 110, 120, 130});
  CellPair hides_faster = pair("system/exact/grow/64/1:256/1", 100, 100);
  hides_faster.before = processes_at({100, 100, 100, 100, 100});
  hides_faster.after = processes_at({70, 80, 90, 100, 102});
  const std::vector<CellPair> pairs{hides_slower, hides_faster, pair("system/exact/allocate/64/1:256/1", 100, 100)};
  GateVerdict v = evaluate_gate(pairs, GateRules{}, {}, VerdictSettings{});
  ASSERT_EQ(v.cells.size(), 3u);
  ASSERT_TRUE(v.cells[0].judgement && v.cells[1].judgement);
  EXPECT_EQ(v.cells[0].judgement->call, Call::unclear);
  EXPECT_GT(v.cells[0].judgement->high, 0.05);
  EXPECT_EQ(v.cells[0].outcome, GateOutcome::unclear);
  EXPECT_NE(v.cells[0].problem.find("a regression up to +30.0% could hide in the interval (threshold 5.0%)"),
            std::string::npos)
      << v.cells[0].problem;
  EXPECT_EQ(v.cells[1].judgement->call, Call::unclear);
  EXPECT_LT(v.cells[1].judgement->low, -0.05);
  EXPECT_EQ(v.cells[1].outcome, GateOutcome::pass);
  EXPECT_EQ(v.cells[2].outcome, GateOutcome::pass);
  EXPECT_EQ(v.unclear, 1);
  EXPECT_EQ(v.exit_code(), 3);
  EXPECT_NE(gate_markdown(v).find("### abench gate: unclear"), std::string::npos) << gate_markdown(v);
  EXPECT_NE(gate_markdown(v).find("UNCLEAR: a regression up to"), std::string::npos);
  // Read back from gate.json: the same outcome and exit code.
  const GateVerdict read = gate_verdict_from_json(gate_json(v), "gate.json");
  EXPECT_EQ(read.unclear, 1);
  EXPECT_EQ(read.exit_code(), 3);

  GateRules allowing;
  allowing.allow_unclear = true;
  v = evaluate_gate(pairs, allowing, {}, VerdictSettings{});
  EXPECT_EQ(v.cells[0].outcome, GateOutcome::pass);
  EXPECT_EQ(v.unclear, 0);
  EXPECT_EQ(v.unclear_allowed, 1);
  EXPECT_EQ(v.exit_code(), 0);
  EXPECT_NE(gate_summary_lines(v).find("unchanged: 3 (1 of them unclear, passed by --allow-unclear)"),
            std::string::npos)
      << gate_summary_lines(v);
  EXPECT_NE(gate_markdown(v).find("pass (unclear, allowed): a regression up to"), std::string::npos);
  EXPECT_TRUE(gate_json(v)["allow_unclear"].get<bool>());
}

TEST(Gate, ThresholdsPerWorkloadPerCellAndTheNoiseFloor) {
  GateRules rules;
  rules.workload_thresholds["append"] = 0.15;
  rules.cell_thresholds.emplace_back("*/grow/*", 0.20);
  const std::vector<CellPair> pairs{pair("system/exact/append/64/1:256/1", 100, 110),
                                    pair("system/exact/grow/64/1:256/1", 100, 110),
                                    pair("system/exact/allocate/64/1:256/1", 100, 110)};
  GateVerdict v = evaluate_gate(pairs, rules, {}, VerdictSettings{});
  EXPECT_EQ(v.cells[0].outcome, GateOutcome::pass);  // 10% < 15% for append
  EXPECT_EQ(v.cells[1].outcome, GateOutcome::pass);  // 10% < 20% for this pattern
  EXPECT_EQ(v.cells[2].outcome, GateOutcome::regression);
  // A calibrated noise floor of 8% with k = 1.5 lifts the bar to 12% for that cell.
  v = evaluate_gate(pairs, rules, {{"system/exact/allocate/64/1:256/1", 0.08}}, VerdictSettings{});
  EXPECT_EQ(v.cells[2].outcome, GateOutcome::pass);
  EXPECT_NEAR(v.cells[2].applied, 0.12, 1e-12);
  EXPECT_NE(gate_markdown(v).find("(noise)"), std::string::npos);
}

TEST(Gate, AFailedCellIsAMeasurementFailure) {
  CellPair broken = pair("system/exact/append/64/1:256/1", 100, 100);
  broken.problem = "candidate cell failed";
  const GateVerdict v =
      evaluate_gate({broken, pair("system/exact/grow/64/1:256/1", 100, 150)}, GateRules{}, {}, VerdictSettings{});
  EXPECT_EQ(v.failed, 1);
  EXPECT_EQ(v.exit_code(), 3);
  EXPECT_EQ(gate_json(v)["cells"][0]["pass"], false);
}

// All-zero, negative or non-finite figures (an edited or broken file) are not judged: the
// gate used to print "+inf%" or "improvement -1696%" and pass.
TEST(Gate, FiguresThatAreNotPositiveAndFiniteAreNeverJudged) {
  // Through the one pairing step, whose guards every verdict shares (compare's too).
  for (double bad : {0.0, -5.0, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    RunResults results = testing::synthetic_compare();
    for (auto& process : results.cells[0].processes) process.sample_ns_per_op.assign(3, bad);
    resummarize_all(results);
    const GateVerdict v = evaluate_gate(pair_sides(results), GateRules{}, {}, VerdictSettings{});
    EXPECT_EQ(v.failed, 1) << bad;
    EXPECT_EQ(compare_results(results, VerdictSettings{}).rows[0].verdict, Verdict::failed) << bad;
    EXPECT_EQ(v.exit_code(), 3) << bad;
    EXPECT_NE(v.cells[0].problem.find("only positive finite figures"), std::string::npos) << v.cells[0].problem;
  }
  EXPECT_EQ(evaluate_gate({}, GateRules{}, {}, VerdictSettings{}).exit_code(), 3);  // nothing to judge
}

TEST(Gate, GateFileErrorsNameTheField) {
  testing::TempDir dir;
  auto error_of = [&](const std::string& text) {
    try {
      load_gate_rules(dir.write("gate.json", text));
      return std::string();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(error_of(R"({"treshold_percent": 5})").find("unknown field 'treshold_percent'"), std::string::npos);
  EXPECT_NE(error_of(R"({"threshold_percent": -1})").find("field 'threshold_percent' must be a percentage"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"workloads": {"shrink": 5}})").find("unknown workload 'shrink'"), std::string::npos);
  EXPECT_NE(error_of(R"({"cells": [{"threshold_percent": 5}]})").find("needs \"match\""), std::string::npos);
  EXPECT_NE(error_of("{\n  \"threshold_percent\": ,\n}").find("malformed JSON at line 2"), std::string::npos);
  const GateRules rules = load_gate_rules(dir.write(
      "ok.json",
      R"({"threshold_percent": 3, "workloads": {"append": 8}, "cells": [{"match": "jemalloc/*", "threshold_percent": 12}]})"));
  EXPECT_DOUBLE_EQ(rules.threshold, 0.03);
  EXPECT_DOUBLE_EQ(rules.workload_thresholds.at("append"), 0.08);
  EXPECT_DOUBLE_EQ(rules.cell_thresholds.at(0).second, 0.12);
}

}  // namespace
}  // namespace abench

namespace abench {
namespace {

// A confirmation run's rounds follow the first run's, side by side, so pairs stay paired.
TEST(PoolRounds, AppendsTheSecondRunsRoundsAfterTheFirstOnBothSides) {
  RunResults first = testing::synthetic_compare(3, 1.1);
  RunResults second = testing::synthetic_compare(2, 1.1);
  for (CellRecord& cell : second.cells)
    if (cell.cell.spec.workload == Workload::grow) cell.processes.clear();  // not run again: nothing to add
  pool_rounds(first, second);
  auto rounds = [](const CellRecord& cell) {
    std::vector<int> r;
    for (const auto& p : cell.processes) r.push_back(p.round);
    return r;
  };
  const CellRecord& allocate = first.cells[0];
  ASSERT_EQ(allocate.cell.spec.workload, Workload::allocate);
  EXPECT_EQ(rounds(allocate), (std::vector<int>{0, 1, 2, 3, 4}));
  const CellRecord& partner = first.cells[static_cast<std::size_t>(first.plan.partner[0])];
  EXPECT_EQ(rounds(partner), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(partner.processes.back().sample_ns_per_op,
            second.cells[static_cast<std::size_t>(first.plan.partner[0])].processes.back().sample_ns_per_op);
  for (const CellRecord& cell : first.cells)
    if (cell.cell.spec.workload == Workload::grow) {
      EXPECT_EQ(cell.processes.size(), 3u);
    }
  const auto pairs = pair_sides(first);
  ASSERT_EQ(pairs.size(), 4u);
  EXPECT_EQ(pairs[0].before_rounds, pairs[0].after_rounds);
  EXPECT_EQ(pairs[0].problem, "");

  // A confirmation that crashed is no confirmation: the cell is failed.
  RunResults crashed = testing::synthetic_compare(0);
  crashed.cells[static_cast<std::size_t>(first.plan.partner[0])].failures.push_back("killed by signal 11");
  resummarize_all(crashed);
  pool_rounds(first, crashed);
  EXPECT_EQ(pair_sides(first)[0].after_summary.status, CellStatus::failed);
  EXPECT_NE(pair_sides(first)[0].problem, "");
}

// The confidence a user gives reaches the gate's judgement and gate.json records it.
TEST(Gate, JudgesAtTheConfidenceGivenAndRecordsIt) {
  const RunResults results = testing::synthetic_compare(6, 1.2);
  VerdictSettings strict;
  strict.confidence = 0.99;
  const GateVerdict v = evaluate_gate(pair_sides(results), GateRules{}, {}, strict);
  EXPECT_DOUBLE_EQ(gate_json(v)["confidence"].get<double>(), 0.99);
  EXPECT_NE(gate_markdown(v).find("99% intervals"), std::string::npos);
  // Six rounds cannot reach 99% (the sign test needs 8): every cell is undecided, not passed.
  EXPECT_EQ(v.undecided, 4);
  EXPECT_EQ(v.exit_code(), 3);
  const GateVerdict usual = evaluate_gate(pair_sides(results), GateRules{}, {}, VerdictSettings{});
  EXPECT_EQ(usual.regressions, 4);
  EXPECT_DOUBLE_EQ(gate_json(usual)["confidence"].get<double>(), 0.95);
  EXPECT_DOUBLE_EQ(gate_verdict_from_json(gate_json(v), "gate.json").confidence, 0.99);
}

TEST(Recount, CountsFollowTheCellsOutcomes) {
  GateVerdict v;
  v.regressions = 7;
  for (GateOutcome o :
       {GateOutcome::pass, GateOutcome::pass, GateOutcome::regression, GateOutcome::improvement, GateOutcome::failed}) {
    GateCell cell;
    cell.outcome = o;
    v.cells.push_back(cell);
  }
  recount(v);
  EXPECT_EQ(v.unchanged, 2);
  EXPECT_EQ(v.regressions, 1);
  EXPECT_EQ(v.improvements, 1);
  EXPECT_EQ(v.failed, 1);
}

// A cell judged against its history: gate.md lists what it was judged against, and gate.json
// keeps it and reads it back; a malformed history entry is refused by name.
TEST(Gate, ACellJudgedAgainstItsHistorySaysSoInGateMdAndGateJson) {
  GateVerdict v =
      evaluate_gate({pair("system/exact/allocate/64/1:256/1", 100, 100)}, GateRules{}, {}, VerdictSettings{});
  GateCell& cell = v.cells.at(0);
  cell.judgement = judge_against_segment({100, 101, 99, 100, 100, 101}, {110}, 0.95, cell.applied, cell.applied);
  cell.history = HistoryBasis{6, "c03", "c08", "c03", 100.2, 110};
  set_outcome(cell, false);
  recount(v);
  EXPECT_EQ(v.regressions, 1);
  const std::string md = gate_markdown(v);
  EXPECT_NE(md.find("Cells judged against their history"), std::string::npos) << md;
  EXPECT_NE(md.find("| system/exact/allocate/64/1:256/1 | 6 | c03 (change point) |"), std::string::npos) << md;
  const nlohmann::json j = gate_json(v);
  EXPECT_EQ(j["cells"][0]["history"]["points"], 6);
  EXPECT_EQ(j["cells"][0]["history"]["change_commit"], "c03");
  const GateVerdict read = gate_verdict_from_json(j, "gate.json");
  ASSERT_TRUE(read.cells.at(0).history);
  EXPECT_EQ(read.cells[0].history->last_commit, "c08");
  EXPECT_DOUBLE_EQ(read.cells[0].history->segment_figure, 100.2);
  EXPECT_EQ(read.regressions, 1);
  nlohmann::json bad = j;
  bad["cells"][0]["history"]["points"] = -3;
  try {
    gate_verdict_from_json(bad, "gate.json");
    FAIL() << "a history of -3 points was read";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'history': field 'points'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace abench
