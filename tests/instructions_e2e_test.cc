// --measure instructions end to end: counts under callgrind repeat exactly, cells the mode
// cannot see are refused (not failed), and --measure perf says "not supported" here
// rather than making a number up.
#include <gtest/gtest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::read_csv;
using testing::read_file;
using testing::run_cli;
using testing::CliResult;

bool have_valgrind() { return access("/usr/bin/valgrind", X_OK) == 0; }

std::vector<std::string> instruction_run(const std::filesystem::path& out) {
  return {"run", "--matrix", "quick", "--measure", "instructions", "--workload", "allocate,append", "--size",
          "64,65536", "--align", "256", "--live", "1", "--processes", "1", "--no-counts", "--out", out.string()};
}

TEST(InstructionsEndToEnd, CountsAreIdenticalAcrossRunsAndTheGatePassesThem) {
  if (!have_valgrind()) GTEST_SKIP() << "valgrind is not installed (scripts/setup.sh installs it)";
  testing::TempDir dir;
  ASSERT_EQ(run_cli(instruction_run(dir.path() / "a")).exit_code, 0);
  const CliResult second = run_cli(instruction_run(dir.path() / "b"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const auto a = read_csv(dir.path() / "a" / "results.csv"), b = read_csv(dir.path() / "b" / "results.csv");
  ASSERT_EQ(a.size(), 12u);
  int measured = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].at("instructions_per_op"), b[i].at("instructions_per_op")) << a[i].at("backend") << " "
                                                                                << a[i].at("workload");
    if (!(a[i].at("size") == "65536" && a[i].at("workload") == "append")) {
      ++measured;
      EXPECT_EQ(a[i].at("status"), "ok");
      EXPECT_GT(std::stod(a[i].at("instructions_per_op")), 10.0);  // malloc + free cannot take fewer
    } else {
      // append at 64 KiB grows to 512 KiB: mmap territory, which callgrind cannot count.
      EXPECT_EQ(a[i].at("status"), "refused") << a[i].at("workload");
    }
  }
  EXPECT_EQ(measured, 9);
  const auto json = nlohmann::json::parse(read_file(dir.path() / "a" / "results.json"));
  EXPECT_EQ(json["protocol"]["measure"], "instructions");
  EXPECT_TRUE(json["cells"][0]["processes"][0].contains("data_accesses_per_op"));

  const CliResult gate = run_cli({"gate", "--baseline", (dir.path() / "a").string(), "--candidate",
                                  (dir.path() / "b").string(), "--out", (dir.path() / "g").string()});
  EXPECT_EQ(gate.exit_code, 0) << gate.out;
  EXPECT_NE(gate.out.find("regressions: 0\nimprovements: 0\nunchanged: 9"), std::string::npos) << gate.out;
}

TEST(InstructionsEndToEnd, TouchIsRefusedWithTheReason) {
  if (!have_valgrind()) GTEST_SKIP() << "valgrind is not installed";
  testing::TempDir dir;
  const CliResult r = run_cli({"run", "--matrix", "quick", "--measure", "instructions", "--touch", "--backend",
                               "system", "--workload", "zeroed", "--size", "64", "--align", "256", "--live", "1",
                               "--no-counts", "--out", (dir.path() / "t").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("REFUSED: in instructions mode, --touch measures first-touch page faults"), std::string::npos) << r.out;
}

TEST(PerfEndToEnd, SaysNotSupportedAndMeasuresNothing) {
  testing::TempDir dir;
  const CliResult r = run_cli({"run", "--matrix", "quick", "--measure", "perf", "--out", (dir.path() / "p").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--measure perf:"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "p"));
}

}  // namespace
}  // namespace abench
