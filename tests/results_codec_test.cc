// The one codec of results.json: what it writes it reads back into the same results (write
// -> read -> write gives the same bytes), a file written by abench before this reader is read,
// and what a file must not say (a field of the wrong type, out of range, not finite, a
// cross-reference to nothing) is refused naming the file and the field.
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/util/errors.h"
#include "src/verdict/compare.h"
#include "src/verdict/compare_file.h"
#include "tests/synthetic_results.h"

namespace abench {
namespace {

std::string written(const RunResults& r) { return results_to_json(r).dump(2) + "\n"; }

std::string error_reading(const nlohmann::json& j) {
  try {
    results_from_json(j, "results.json");
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ResultsCodec, WriteReadWriteGivesTheSameBytes) {
  RunResults compare = testing::synthetic_compare(6, 1.1);
  compare.cells[1].failures.push_back("worker old (round 2) killed by signal 11 (SIGSEGV) while running this cell");
  compare.cells[2].counts_unavailable = "counting worker gave no reason";
  CellCounts counts;
  counts.ok = true;
  counts.operations = 10;
  counts.requests = counts.frees = 10;
  counts.expected_requests_min = counts.expected_requests_max = counts.requests_min = counts.requests_max = 1;
  counts.allocator_resident_source = "mallinfo2";
  compare.cells[3].counts = counts;
  compare.cells[3].counting_done = true;
  compare.interrupted_by = 2;  // SIGINT
  compare.complete = false;
  compare.protocol.layout = LayoutMode::drawn;
  compare.cells[0].processes[1].layout = ProcessLayout{0xfedcba9876543210ULL, 4080};
  resummarize_all(compare);
  const std::string first = written(compare);
  const RunResults read = results_from_json(nlohmann::json::parse(first), "results.json");
  EXPECT_EQ(written(read), first);
  // The same cells, paired the same way: the verdicts of the file are the verdicts of the run.
  ASSERT_EQ(read.plan.partner, compare.plan.partner);
  const Comparison before = compare_results(compare, VerdictSettings{});
  const Comparison after = compare_results(read, VerdictSettings{});
  ASSERT_EQ(before.rows.size(), after.rows.size());
  for (std::size_t i = 0; i < before.rows.size(); ++i) {
    EXPECT_EQ(before.rows[i].verdict, after.rows[i].verdict);
    EXPECT_EQ(before.rows[i].problem, after.rows[i].problem);
  }
  EXPECT_EQ(read.interrupted_by, 2);
  EXPECT_EQ(read.protocol.layout, LayoutMode::drawn);
  EXPECT_EQ(read.cells[0].processes[1].layout, compare.cells[0].processes[1].layout);
  EXPECT_FALSE(read.cells[0].processes[0].layout);

  // A run (no sides) the same.
  RunResults run = compare;
  run.plan.partner.clear();
  const std::string run_text = written(run);
  EXPECT_EQ(written(results_from_json(nlohmann::json::parse(run_text), "results.json")), run_text);
}

// Files written by abench built at 7aea1b6, before this reader (abench run --matrix quick
// --backend system,jemalloc --workload allocate,grow --size 64 --align 256 --live 1
// --processes 2 --samples 3 --min-batch-ms 1, and compare --baseline backend=system
// --candidate backend=system,env=ABENCH_AA=1 over the same cells with compare's 6 rounds).
TEST(ResultsCodec, ReadsFilesWrittenBeforeThisReader) {
  for (const char* name : {"run", "compare"}) {
    const std::string path = std::string(ABENCH_TEST_DATA) + "/results-7aea1b6-" + name + ".json";
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const RunResults r = load_results(path);
    EXPECT_EQ(r.cells.size(), 4u) << name;
    EXPECT_EQ(written(r), text.str()) << name << ": read and written again, the file is unchanged";
  }
}

// The typed conditions and the free-form facts beside them share one object in the file,
// each read back where it was: a typed field never lands among the facts, nor a fact among them.
TEST(ResultsCodec, ConditionsKeepTheirTypedFieldsAndTheirFactsApart) {
  RunResults r = testing::synthetic_compare();
  r.conditions.allowed_cpus = {0, 1};
  r.conditions.orchestrator_cpus = {0};
  r.conditions.counting_cpu = 0;
  r.conditions.warnings = {"hypervisor: KVM"};
  r.conditions.facts = {{"cpu_model", "Test CPU"}, {"hostname", "h"}};
  r.conditions.resumed = nlohmann::json::array({{{"at", "2026-12-06T00:00:00Z"}}});
  const nlohmann::json j = results_to_json(r);
  EXPECT_EQ(j["conditions"]["cpu_model"], "Test CPU");
  EXPECT_EQ(j["conditions"]["counting_cpu"], 0);
  const RunResults back = results_from_json(j, "results.json");
  EXPECT_EQ(back.conditions.allowed_cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(back.conditions.orchestrator_cpus, (std::vector<int>{0}));
  EXPECT_EQ(back.conditions.counting_cpu, 0);
  EXPECT_EQ(back.conditions.last_allowed_cpu(), 1);
  EXPECT_EQ(back.conditions.warnings, (std::vector<std::string>{"hypervisor: KVM"}));
  EXPECT_EQ(back.conditions.architecture, "x86_64");
  EXPECT_EQ(back.conditions.facts, r.conditions.facts);
  EXPECT_EQ(back.conditions.resumed, r.conditions.resumed);
  nlohmann::json none = j;
  none["conditions"]["counting_cpu"] = nullptr;
  EXPECT_FALSE(results_from_json(none, "results.json").conditions.counting_cpu.has_value());
}

// Fields results.json gained after it began (side, refusal, counts_unavailable,
// finished_rounds, counting_finished, interrupted_by; a variant's plugin, preload, exe, env)
// may be absent: a baseline stored before them is still read, the missing ones derived.
TEST(ResultsCodec, ReadsFilesFromBeforeItsLaterFields) {
  nlohmann::json j = nlohmann::json::parse(written(testing::synthetic_compare()));
  j.erase("interrupted_by");
  for (auto& v : j["variants"])
    for (const char* key : {"plugin", "preload", "exe", "env"}) v.erase(key);
  for (auto& c : j["cells"])
    for (const char* key : {"side", "refusal", "counts_unavailable", "finished_rounds", "counting_finished"})
      c.erase(key);
  const RunResults r = results_from_json(j, "old.json");
  EXPECT_TRUE(r.plan.partner.empty());  // without sides, a run's cells
  ASSERT_EQ(r.cells.size(), 8u);
  EXPECT_EQ(r.cells[0].rounds_done, (std::vector<int>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(r.cells[0].summary.status, CellStatus::ok);
}

TEST(ResultsCodec, RefusesWhatAFileMustNotSayNamingTheField) {
  const nlohmann::json good = results_to_json(testing::synthetic_compare());
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string must_mention;
  };
  const std::vector<Case> cases{
      {[](auto& j) { j["cells"][1]["id"] = 7; }, "field 'cells[1].id' is 7, but the cell is cells[1]"},
      {[](auto& j) { j["cells"][0]["variant"] = "nobody"; }, "field 'cells[0].variant' is 'nobody', not the label"},
      {[](auto& j) { j["cells"][0]["backend"] = "jemalloc"; },
       "field 'cells[0].backend' is 'jemalloc' but its variant's"},
      {[](auto& j) { j["cells"][0]["workload"] = "shrink"; }, "field 'cells[0].workload'"},
      {[](auto& j) { j["cells"][0]["processes"][0]["round"] = 7; },
       "field 'cells[0].processes[0].round' is 7 (allowed: 1 to 6)"},
      {[](auto& j) { j["cells"][0]["processes"][0]["samples_ns_per_op"][1] = -1; },
       "field 'cells[0].processes[0].samples_ns_per_op[1]' must be a finite number, not negative"},
      {[](auto& j) {
         j["cells"][0]["processes"][0]["sample_iterations"] = {1, 2};
       },
       "field 'cells[0].processes[0].sample_iterations' has 2 counts for 3 samples"},
      {[](auto& j) {
         j["cells"][0]["processes"][0]["layout"] = {{"seed", 1}, {"stack_shift", 24}};
       },
       "field 'cells[0].processes[0].layout.stack_shift' must be a multiple of 16"},
      {[](auto& j) {
         j["cells"][0]["processes"][0]["layout"] = {{"seed", 1}, {"stack_shift", 4096}};
       },
       "field 'cells[0].processes[0].layout.stack_shift' is 4096 (allowed: 0 to 4095)"},
      {[](auto& j) { j["protocol"]["layout"] = "random"; },
       "field 'protocol.layout' is \"random\" (allowed: kernel, drawn, fixed)"},
      {[](auto& j) { j["cells"][0]["status"] = "failed"; }, "field 'cells[0].status' is 'failed' but"},
      {[](auto& j) { j["cells"][0]["side"] = "candidate"; }, "field 'cells[0].side' is 'candidate'"},
      {[](auto& j) { j["cells"][0]["finished_rounds"] = {0}; }, "field 'cells[0].finished_rounds[0]' is 0"},
      {[](auto& j) { j["variants"][1]["label"] = "old"; }, "field 'variants[1].label' names two variants"},
      {[](auto& j) { j["interrupted_by"] = "NOPE"; }, "field 'interrupted_by' is 'NOPE'"},
      {[](auto& j) { j["protocol"]["samples"] = 0; },
       "field 'protocol.samples' is 0 (allowed: a whole number from 1 to 10000)"},
      {[](auto& j) { j["cells"][0].erase("processes"); }, "field 'cells[0].processes' is missing"},
      {[](auto& j) {
         j["conditions"]["allowed_cpus"] = {0, "one"};
       },
       "field 'conditions.allowed_cpus[1]' must be a whole number"},
      {[](auto& j) { j["conditions"]["counting_cpu"] = -1; }, "field 'conditions.counting_cpu' is -1"},
      {[](auto& j) { j["conditions"]["warnings"] = "none"; }, "field 'conditions.warnings'"},
      {[](auto& j) { j["conditions"]["architecture"] = 64; }, "field 'conditions.architecture' must be a string"},
      {[](auto& j) { j["conditions"]["resumed"] = "once"; }, "field 'conditions.resumed' must be a list"},
      {[](auto& j) {
         j["cells"].erase(j["cells"].begin() + 4);
         for (std::size_t i = 0; i < j["cells"].size(); ++i) j["cells"][i]["id"] = i;
       },
       "has no partner on the other side"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    c.edit(j);
    const std::string error = error_reading(j);
    EXPECT_NE(error.find("results.json: malformed results: "), std::string::npos) << error;
    EXPECT_NE(error.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << error;
  }
  EXPECT_EQ(error_reading(good), "");
}

// compare.json's reader: a verdict must be the one rule's at the file's own settings, and
// the tallies must be the rows'; a crafted "faster" or a forged count is refused.
TEST(CompareFileCodec, RefusesWhatAFileMustNotSayNamingTheField) {
  const Comparison slower = compare_results(testing::synthetic_compare(6, 1.1), VerdictSettings{});
  const nlohmann::json good = comparison_json(slower);
  ASSERT_EQ(good["rows"][0]["verdict"], "slower");
  struct Case {
    std::function<void(nlohmann::json&)> edit;
    std::string must_mention;
  };
  const std::vector<Case> cases{
      {[](auto& j) { j["rows"][0]["verdict"] = "faster"; },
       "field 'rows[0].verdict' is 'faster', but its change +9.89% and interval [+9.89%, +10.44%] at minimum effect 1% "
       "and "
       "margin ±3% make it 'slower'"},
      {[](auto& j) { j["rows"][0]["verdict"] = "same"; }, "make it 'slower'"},
      {[](auto& j) { j["rows"][0]["verdict"] = "~"; }, "(allowed: slower, faster, same, unclear"},
      {[](auto& j) { j["rows"][0]["detectable_change"] = 0.5; }, "but its interval makes it"},
      {[](auto& j) { j["method"]["detect"] = 0; }, "field 'method.detect'"},
      {[](auto& j) { j["same"] = 99; }, "but the rows make it"},
      {[](auto& j) { j["method"]["min_effect"] = 0.5; }, "field 'rows[0].verdict' is 'slower', but"},
      {[](auto& j) { j["rows"][0]["coverage"] = 0.5; }, "covers 0.5, less than the file's confidence 0.95"},
      {[](auto& j) { j["rows"][0]["verdict"] = "pass"; },
       "(allowed: slower, faster, same, unclear, undecided, failed)"},
      {[](auto& j) {
         j["rows"][0]["interval"] = {0.2, 0.3};
       },
       "field 'rows[0].interval' must hold the change"},
      {[](auto& j) { j["rows"][0]["change"] = "big"; }, "field 'rows[0].change' must be a finite number"},
      {[](auto& j) { j["calls"] = 0; }, "field 'calls' is 0, but the rows make it"},
      {[](auto& j) { j["method"]["confidence"] = 0; }, "field 'method.confidence' must lie between 0.5 and 1"},
      {[](auto& j) { j["rows"][0]["pair"] = 3; }, "field 'rows[0].pair' is 3 (allowed: 0 to 0)"},
      {[](auto& j) { j["rows"][0]["workload"] = "shrink"; }, "field 'rows[0].workload'"},
      {[](auto& j) { j["metric"] = "cycles_per_op"; }, "field 'metric' is 'cycles_per_op'"},
      {[](auto& j) { j["rows"][0].erase("verdict"); }, "field 'rows[0].verdict' is missing"},
  };
  for (const Case& c : cases) {
    nlohmann::json j = good;
    c.edit(j);
    std::string error;
    try {
      comparison_from_json(j, "compare.json");
    } catch (const UsageError& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("compare.json: malformed compare file: "), std::string::npos) << error;
    EXPECT_NE(error.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << error;
  }
  // What follows from the rows is derived again: a file's own geometric mean is not taken.
  nlohmann::json edited = good;
  edited["geomean_change"] = -0.5;
  edited["warnings"] = {"all is well"};
  EXPECT_EQ(comparison_json(comparison_from_json(edited, "compare.json")), good);
}

// The medians a summary and a verdict use are the samples' own, not what a file says.
TEST(ResultsCodec, ProcessMediansAreRecomputedFromTheSamples) {
  nlohmann::json j = results_to_json(testing::synthetic_compare());
  j["cells"][0]["processes"][0]["median_ns_per_op"] = 1e9;
  const RunResults r = results_from_json(j, "results.json");
  EXPECT_DOUBLE_EQ(r.cells[0].processes[0].median_ns_per_op, median(r.cells[0].processes[0].sample_ns_per_op));
}

}  // namespace
}  // namespace abench
