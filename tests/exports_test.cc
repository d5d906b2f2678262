// The exports on a synthetic compare of two builds that share backend and policy (the case
// that used to lose a side): every tool's name unique per side, repetitions the process
// medians, aggregates what they say, units per measure, failed cells present.
#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "src/util/errors.h"
#include "src/exports/export_names.h"
#include "src/exports/format_registry.h"
#include "src/run/orchestrator.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

// Two builds of one allocator (labels old, new/2), 2 cells a side, 3 processes of 3 samples;
// the candidate's second cell failed.
RunResults two_builds() {
  Matrix m = testing::small_matrix({"system"}, 3, {64, 4096}, {1});
  m.workloads = {Workload::allocate};
  Variant old_build, new_build;
  old_build.name = "old";
  new_build.name = "new/2";
  RunResults r;
  r.matrix = m;
  r.protocol = m.protocol;
  r.plan = make_compare_plan(m, {old_build}, {new_build}, 1);
  lay_out_cells(r);
  for (CellRecord& cell : r.cells) {
    const bool failed = cell.cell.variant == 1 && cell.cell.spec.size == 4096;
    if (failed) {
      cell.failures.push_back("worker new/2 (round 1) killed by signal 11 (SEGV) while running this cell");
      continue;
    }
    for (int p = 0; p < 3; ++p) {
      ProcessMeasurement m;
      m.round = p;
      m.iterations = 1000;
      m.sample_ns_per_op = {10.0 + p, 20.0 + p, 30.0 + p};  // median 20 + p
      m.median_ns_per_op = 20.0 + p;
      cell.processes.push_back(m);
    }
  }
  resummarize_all(r);
  return r;
}

TEST(Exports, NamesAreUniquePerVariantEvenWhereLabelsDifferOnlyInCharactersANameCannotHold) {
  RunResults r = two_builds();
  r.plan.variants[0].name = "a b";
  r.plan.variants[1].name = "a/b";
  const std::vector<std::string> parts = variant_name_parts(r);
  EXPECT_EQ(parts[0], "a-b");
  EXPECT_EQ(parts[1], "a-b~2");
  const CellIdentity id = identity_of(r, r.cells[0], parts);
  EXPECT_EQ(arg_value_name(id),
            "abench/variant:a-b/backend:system/policy:exact/workload:allocate/size:64/align:1-256/live:1");
  EXPECT_EQ(key_value_name(id),
            "BenchmarkAbench/variant=a-b/backend=system/policy=exact/workload=allocate/size=64/align=1-256/live=1");
}

TEST(Exports, UnitsAndArchitecturesInTheReadersWords) {
  EXPECT_EQ(unit_per_op(Measure::time), "ns/op");
  EXPECT_EQ(unit_per_op(Measure::instructions), "instr/op");
  EXPECT_EQ(unit_per_op(Measure::perf_software), "task-clock-ns/op");
  EXPECT_EQ(go_arch("x86_64"), "amd64");
  EXPECT_EQ(go_arch("aarch64"), "arm64");
  EXPECT_EQ(go_arch("mips"), "mips");
}

TEST(Exports, GoogleBenchmarkRepetitionsAreProcessMediansAndTheFailedCellIsAnError) {
  const auto j = nlohmann::json::parse(google_benchmark_json(two_builds()));
  std::set<std::string> names;
  int repetitions = 0, errors = 0;
  for (const auto& b : j["benchmarks"]) {
    names.insert(b["run_name"].get<std::string>());
    if (b.value("error_occurred", false)) {
      ++errors;
      EXPECT_NE(b["error_message"].get<std::string>().find("SEGV"), std::string::npos);
      EXPECT_NE(b["name"].get<std::string>().find("variant:new-2/"), std::string::npos);
      continue;
    }
    if (b["run_type"] == "iteration") {
      ++repetitions;
      EXPECT_EQ(b["repetitions"], 3);
      EXPECT_DOUBLE_EQ(b["real_time"].get<double>(), 20.0 + b["repetition_index"].get<int>());
      EXPECT_EQ(b["iterations"], 1000);
    } else {
      EXPECT_DOUBLE_EQ(b["real_time"].get<double>(), 21.0);  // the median of the three repetitions
      EXPECT_EQ(b["iterations"], 1000);
    }
  }
  EXPECT_EQ(names.size(), 4u);  // two cells, two sides: none shares a name
  EXPECT_EQ(repetitions, 3 * 3);
  EXPECT_EQ(errors, 1);
  EXPECT_EQ(j["context"]["abench"]["variants"][1]["side"], "candidate");
  EXPECT_EQ(j["context"]["abench"]["variants"][1]["label"], "new/2");

  const auto samples = nlohmann::json::parse(google_benchmark_samples_json(two_builds()));
  int sample_entries = 0;
  for (const auto& b : samples["benchmarks"])
    if (b["run_type"] == "iteration" && !b.value("error_occurred", false)) ++sample_entries;
  EXPECT_EQ(sample_entries, 3 * 3 * 3);
}

TEST(Exports, GoTextHasALinePerProcessKeyValueNamesAndTheFailureAsAFailLine) {
  const std::string text = go_benchmark_text(two_builds());
  int lines = 0;
  std::set<std::string> names;
  for (std::size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string line = text.substr(start, end - start);
    if (line.starts_with("BenchmarkAbench/")) {
      ++lines;
      names.insert(line.substr(0, line.find(' ')));
      EXPECT_NE(line.find(" ns/op"), std::string::npos) << line;
    }
  }
  EXPECT_EQ(lines, 3 * 3);
  EXPECT_EQ(names.size(), 3u);
  EXPECT_NE(
      text.find("--- FAIL: BenchmarkAbench/variant=new-2/backend=system/policy=exact/workload=allocate/size=4096"),
      std::string::npos);
  EXPECT_NE(text.find("abench-measure: time\n"), std::string::npos);
  EXPECT_NE(text.find("abench-variant-new-2: new/2; candidate"), std::string::npos) << text;
  EXPECT_NE(text.find(" 21.000 ns/op"), std::string::npos);  // a process median, not a sample
}

TEST(Exports, BencherAndTheActionKeepBothSides) {
  const auto bencher = nlohmann::json::parse(bencher_json(two_builds()));
  EXPECT_EQ(bencher.size(), 3u);  // the failed cell has no figure
  EXPECT_TRUE(
      bencher.contains("abench/variant:old/backend:system/policy:exact/workload:allocate/size:64/align:1-256/live:1"));
  EXPECT_TRUE(bencher.contains(
      "abench/variant:new-2/backend:system/policy:exact/workload:allocate/size:64/align:1-256/live:1"));
  const auto action = nlohmann::json::parse(action_benchmark_json(two_builds()));
  ASSERT_EQ(action.size(), 3u);
  for (const auto& entry : action) {
    for (const char* key : {"name", "unit", "value", "range", "extra"}) EXPECT_TRUE(entry.contains(key)) << key;
    EXPECT_EQ(entry["unit"], "ns/op");
    EXPECT_DOUBLE_EQ(entry["value"].get<double>(), 21.0);
  }
}

TEST(Exports, AFormatThatCannotHoldTheMeasureIsRefusedWithTheOnesThatCan) {
  EXPECT_NO_THROW(check_formats({"gbench", "go"}, Measure::time));
  try {
    check_formats({"go", "gbench"}, Measure::instructions);
    ADD_FAILURE() << "gbench under instructions was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("option --format gbench: it holds times"), std::string::npos) << e.what();
  }
  try {
    check_formats({"csv2"}, Measure::time);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("(allowed: gbench, gbench-samples, go, go-samples, bencher, action)"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace abench
