// --format: Google Benchmark JSON, Bencher Metric Format and Go's benchmark text, checked
// against the fields their tools read.
#include <gtest/gtest.h>

#include <regex>

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
    const auto r = run_cli({"run", "--matrix", "quick", "--backend", "system,mimalloc", "--workload", "allocate,append",
                            "--size", "64", "--align", "256", "--live", "1", "--samples", "3", "--processes", "2",
                            "--min-batch-ms", "0.2", "--format", "gbench,bencher,go", "--out", out().string()});
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
  EXPECT_EQ(iterations, 4 * 3 * 2);  // 4 cells x 3 samples x 2 processes
  EXPECT_EQ(medians, 4);
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
  const std::regex result(R"(^Benchmark\S+ \d+ [0-9.]+ ns/op \d+ B/op [0-9.e+]+ allocs/op$)");
  const std::regex config(R"(^[a-z][^\sA-Z:]*: .+$)");
  int results = 0;
  for (const auto& line : split_lines(read_file(out() / "go-bench.txt"))) {
    if (line.rfind("Benchmark", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, result)) << line;
      ++results;
    } else {
      EXPECT_TRUE(std::regex_match(line, config)) << line;
    }
  }
  EXPECT_EQ(results, 4 * 3 * 2);  // one line per sample: benchstat's unit of input
}

TEST(FormatsOption, UnknownFormatIsAUsageError) {
  const auto r = testing::run_cli({"run", "--matrix", "quick", "--format", "csv2"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown format 'csv2' (allowed: gbench, bencher, go)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace abench
