// --format: Google Benchmark JSON, Bencher Metric Format and Go's benchmark text, checked
// against the fields their tools read.
#include <gtest/gtest.h>

#include <regex>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::read_file;
using testing::run_cli;
using testing::split_lines;

class FormatsEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir;
    const auto r = run_cli({"run",
                            "--matrix",
                            "quick",
                            "--backend",
                            "system,mimalloc",
                            "--workload",
                            "allocate,append",
                            "--size",
                            "64",
                            "--align",
                            "256",
                            "--live",
                            "1",
                            "--samples",
                            "3",
                            "--processes",
                            "2",
                            "--min-batch-ms",
                            "0.2",
                            "--format",
                            "gbench,gbench-samples,bencher,go,go-samples,action",
                            "--out",
                            out().string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete dir_; }
  static std::filesystem::path out() { return dir_->path() / "run"; }
  static testing::TempDir* dir_;
};
testing::TempDir* FormatsEndToEnd::dir_ = nullptr;

TEST_F(FormatsEndToEnd, GoogleBenchmarkJson) {
  const auto j = nlohmann::json::parse(read_file(out() / "benchmark.json"));
  for (const char* key : {"date", "host_name", "executable", "num_cpus", "library_build_type", "abench_allocators"})
    EXPECT_TRUE(j["context"].contains(key)) << key;
  EXPECT_EQ(j["context"]["abench_allocators"].size(), 2u);
  int iterations = 0, medians = 0;
  for (const auto& b : j["benchmarks"]) {
    for (const char* key : {"name", "run_name", "run_type", "repetitions", "threads", "iterations", "real_time",
                            "cpu_time", "time_unit", "family_index", "per_family_instance_index"})
      ASSERT_TRUE(b.contains(key)) << key << " in " << b.dump();
    EXPECT_EQ(b["time_unit"], "ns");
    EXPECT_TRUE(b.contains("requests"));  // counts as counters
    if (b["run_type"] == "iteration") {
      ++iterations;
      EXPECT_TRUE(b.contains("repetition_index"));
    } else {
      ++medians;
      EXPECT_EQ(b["run_type"], "aggregate");
      EXPECT_EQ(b["aggregate_name"], "median");
      EXPECT_EQ(b["name"], b["run_name"].get<std::string>() + "_median");
    }
  }
  EXPECT_EQ(iterations, 4 * 2);  // 4 cells x 2 processes: a repetition per process
  EXPECT_EQ(medians, 4);
  EXPECT_EQ(j["context"]["abench"]["measure"], "time");
  EXPECT_EQ(j["context"]["abench"]["variants"].size(), 2u);

  const auto samples = nlohmann::json::parse(read_file(out() / "benchmark-samples.json"));
  int sample_entries = 0;
  for (const auto& b : samples["benchmarks"]) sample_entries += b["run_type"] == "iteration";
  EXPECT_EQ(sample_entries, 4 * 3 * 2);  // 4 cells x 3 samples x 2 processes
}

TEST_F(FormatsEndToEnd, GithubActionBenchmarkCustomSmallerIsBetter) {
  const auto j = nlohmann::json::parse(read_file(out() / "action-benchmark.json"));
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), 4u);
  std::set<std::string> names;
  for (const auto& entry : j) {
    ASSERT_TRUE(entry["name"].is_string());
    ASSERT_TRUE(entry["value"].is_number());
    EXPECT_EQ(entry["unit"], "ns/op");
    names.insert(entry["name"].get<std::string>());
  }
  EXPECT_EQ(names.size(), 4u);
}

TEST_F(FormatsEndToEnd, BencherMetricFormat) {
  const auto j = nlohmann::json::parse(read_file(out() / "bencher.json"));
  ASSERT_EQ(j.size(), 4u);
  for (const auto& [benchmark, measures] : j.items()) {
    ASSERT_TRUE(measures.contains("latency")) << benchmark;
    for (const auto& [measure, metric] : measures.items()) {
      ASSERT_TRUE(metric["value"].is_number()) << benchmark << " " << measure;  // the one required field
      if (metric.contains("lower_value")) {
        EXPECT_LE(metric["lower_value"].get<double>(), metric["upper_value"].get<double>());
      }
    }
    EXPECT_LE(measures["latency"]["lower_value"].get<double>(), measures["latency"]["value"].get<double>());
  }
}

TEST_F(FormatsEndToEnd, GoBenchmarkText) {
  const std::regex result(R"(^BenchmarkAbench(/[a-z]+=[^\s/=]+)+ \d+ [0-9.]+ ns/op \d+ B/op [0-9.e+]+ allocs/op$)");
  const std::regex config(R"(^[a-z][^\sA-Z:]*: .+$)");
  int results = 0;
  std::string text = read_file(out() / "go-bench.txt");
  for (const auto& line : split_lines(text)) {
    if (line.rfind("Benchmark", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, result)) << line;
      ++results;
    } else {
      EXPECT_TRUE(std::regex_match(line, config)) << line;
    }
  }
  EXPECT_EQ(results, 4 * 2);  // a line per process: the replicates benchstat should count
  EXPECT_EQ(text.find("goarch: x86_64"), std::string::npos);  // Go says amd64
  int sample_lines = 0;
  for (const auto& line : split_lines(read_file(out() / "go-bench-samples.txt")))
    sample_lines += line.rfind("Benchmark", 0) == 0;
  EXPECT_EQ(sample_lines, 4 * 3 * 2);
}

TEST(FormatsOption, UnknownFormatIsAUsageError) {
  const auto r = testing::run_cli({"run", "--matrix", "quick", "--format", "csv2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown format 'csv2' (allowed: gbench, gbench-samples, go, go-samples, bencher, action)"),
            std::string::npos)
      << r.err;
}

// A compare of two builds that share backend and policy: each tool sees both sides.
TEST(FormatsCompare, BothSidesOfACompareKeepTheirNames) {
  testing::TempDir dir;
  const auto out = dir.path() / "aa";
  const auto r = run_cli({"compare",
                          "--baseline",
                          "backend=system,label=A",
                          "--candidate",
                          "backend=system,label=B",
                          "--matrix",
                          "quick",
                          "--workload",
                          "allocate",
                          "--size",
                          "64",
                          "--align",
                          "64",
                          "--live",
                          "1",
                          "--samples",
                          "3",
                          "--processes",
                          "2",
                          "--min-batch-ms",
                          "0.2",
                          "--no-counts",
                          "--format",
                          "bencher,go,gbench",
                          "--out",
                          out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bencher = nlohmann::json::parse(read_file(out / "bencher.json"));
  EXPECT_EQ(bencher.size(), 2u);
  std::set<std::string> go_names;
  for (const auto& line : split_lines(read_file(out / "go-bench.txt")))
    if (line.rfind("Benchmark", 0) == 0) go_names.insert(line.substr(0, line.find(' ')));
  EXPECT_EQ(go_names,
            (std::set<std::string>{
                "BenchmarkAbench/variant=A/backend=system/policy=exact/workload=allocate/size=64/align=1-64/live=1",
                "BenchmarkAbench/variant=B/backend=system/policy=exact/workload=allocate/size=64/align=1-64/live=1"}));
}

// Google Benchmark's own compare.py (Debian's libbenchmark-tools) on a compare's export:
// it pairs the two sides by name once the variant part is filtered out, and its U test gets
// one repetition per worker process, the process medians abench itself judges on.
TEST(FormatsCompare, GoogleBenchmarksComparePyPairsTheTwoSidesProcessByProcess) {
  testing::TempDir dir;
  const auto out = dir.path() / "ab";
  const auto r = run_cli({"compare",
                          "--baseline",
                          "backend=system,label=A",
                          "--candidate",
                          "backend=system,label=B",
                          "--matrix",
                          "quick",
                          "--workload",
                          "allocate",
                          "--size",
                          "64,4096",
                          "--align",
                          "64",
                          "--live",
                          "1",
                          "--samples",
                          "3",
                          "--processes",
                          "3",
                          "--min-batch-ms",
                          "0.2",
                          "--no-counts",
                          "--no-report",
                          "--format",
                          "gbench",
                          "--out",
                          out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto dumped = dir.path() / "compare-py.json";
  const auto py =
      testing::run_tool("/usr/bin/python3", {"/usr/share/benchmark/compare.py", "--no-color", "-d", dumped.string(),
                                             "filters", (out / "benchmark.json").string(), "variant:A", "variant:B"});
  ASSERT_EQ(py.exit_code, 0) << py.out << py.err;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  std::map<std::string, const nlohmann::json*> cell_of;  // "A/64" -> its cell
  for (const auto& c : results["cells"])
    cell_of[c["variant"].get<std::string>() + "/" + std::to_string(c["size"].get<int>())] = &c;
  const auto compared = nlohmann::json::parse(read_file(dumped));
  int repetitions = 0, medians = 0;
  for (const auto& e : compared) {
    const std::string name = e["name"];
    if (name == "OVERALL_GEOMEAN") continue;
    const std::string size = name.find("size:4096") != std::string::npos ? "4096" : "64";
    EXPECT_EQ(name.rfind("abench/[variant:A vs. variant:B]/backend:system/", 0), 0u) << name;
    const auto& a = *cell_of.at("A/" + size);
    const auto& b = *cell_of.at("B/" + size);
    if (e["run_type"] == "iteration") {
      ++repetitions;
      ASSERT_EQ(e["measurements"].size(), 3u) << name;
      EXPECT_EQ(e["utest"]["nr_of_repetitions"], 3) << name;
      EXPECT_EQ(e["utest"]["nr_of_repetitions_other"], 3) << name;
      for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_DOUBLE_EQ(e["measurements"][k]["real_time"].get<double>(),
                         a["processes"][k]["median_ns_per_op"].get<double>());
        EXPECT_DOUBLE_EQ(e["measurements"][k]["real_time_other"].get<double>(),
                         b["processes"][k]["median_ns_per_op"].get<double>());
      }
    } else if (e["aggregate_name"] == "median") {
      ++medians;
      EXPECT_DOUBLE_EQ(e["measurements"][0]["real_time"].get<double>(), a["ns_per_op"].get<double>()) << name;
      EXPECT_DOUBLE_EQ(e["measurements"][0]["real_time_other"].get<double>(), b["ns_per_op"].get<double>()) << name;
    }
  }
  EXPECT_EQ(repetitions, 2);
  EXPECT_EQ(medians, 2);
}

// results.csv and compare.csv through Python's csv module in strict mode: a label with a
// quote and a comma, and a failed cell's error with commas and quotes, come back field for field.
TEST(FormatsCsv, PythonsCsvReaderGetsEveryFieldBack) {
  testing::TempDir dir;
  const auto out = dir.path() / "csv";
  const std::string label = "say \"hi\"";
  const auto r = run_cli(
      {"compare",
       "--baseline",
       std::string("plugin=") + testing::built::kMallocSubject + ",label=" + label,
       "--candidate",
       std::string("plugin=") + testing::built::kFaultSubject + ",label=faulty,env=ABENCH_TEST_FAULT=nonutf8:256",
       "--matrix",
       "quick",
       "--backend",
       "system",
       "--workload",
       "allocate",
       "--size",
       "64,256",
       "--align",
       "64",
       "--live",
       "1",
       "--samples",
       "3",
       "--min-batch-ms",
       "0.2",
       "--processes",
       "2",
       "--no-counts",
       "--no-report",
       "--out",
       out.string()});
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;  // a cell failed
  const char* reader =
      "import csv, json, sys\n"
      "with open(sys.argv[1], newline='') as f:\n"
      "    print(json.dumps(list(csv.DictReader(f, strict=True))))\n";
  const auto py = testing::run_tool("/usr/bin/python3", {"-c", reader, (out / "results.csv").string()});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  const auto rows = nlohmann::json::parse(py.out);
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  ASSERT_EQ(rows.size(), results["cells"].size());
  int failed = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const auto& cell = results["cells"][i];
    EXPECT_EQ(row["variant"], cell["variant"]);
    EXPECT_EQ(row["status"], cell["status"]);
    EXPECT_EQ(row["error"], cell["errors"].empty() ? "" : cell["errors"][0].get<std::string>());
    if (cell["status"] == "failed") {
      ++failed;
      const std::string error = row["error"];
      EXPECT_NE(error.find(','), std::string::npos) << error;  // the case quoting is for
    }
  }
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(rows[0]["variant"], label);
  const auto compare = testing::run_tool("/usr/bin/python3", {"-c", reader, (out / "compare.csv").string()});
  ASSERT_EQ(compare.exit_code, 0) << compare.err;
  const auto compare_rows = nlohmann::json::parse(compare.out);
  ASSERT_EQ(compare_rows.size(), 2u);
  for (const auto& row : compare_rows) EXPECT_EQ(row["baseline"], label) << row.dump();
}

TEST(FormatsOption, GateWritesTheFormatsOfWhatItMeasuresAndRefusesThemWhenItMeasuresNothing) {
  testing::TempDir dir;
  const std::vector<std::string> tiny{"--matrix",   "quick", "--backend",   "system", "--workload",     "allocate",
                                      "--size",     "64",    "--align",     "64",     "--live",         "1",
                                      "--samples",  "3",     "--processes", "2",      "--min-batch-ms", "0.2",
                                      "--no-counts"};
  std::vector<std::string> run{"run"};
  run.insert(run.end(), tiny.begin(), tiny.end());
  run.insert(run.end(), {"--out", (dir.path() / "base").string()});
  ASSERT_EQ(run_cli(run).exit_code, 0);
  std::vector<std::string> gate{"gate", "--baseline", (dir.path() / "base").string(), "--no-confirm"};
  gate.insert(gate.end(), tiny.begin(), tiny.end());
  gate.insert(gate.end(), {"--format", "go", "--out", (dir.path() / "gate").string()});
  const auto g = run_cli(gate);
  EXPECT_NE(g.exit_code, 2) << g.err;
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "gate" / "go-bench.txt")) << g.out << g.err;
  const auto files =
      run_cli({"gate", "--baseline", (dir.path() / "base").string(), "--candidate", (dir.path() / "base").string(),
               "--format", "go", "--out", (dir.path() / "files").string()});
  EXPECT_EQ(files.exit_code, 2);
  EXPECT_NE(files.err.find("option --format: with --candidate the gate measures nothing"), std::string::npos)
      << files.err;
}

}  // namespace
}  // namespace abench
