// --explain end to end through the real CLI: two builds of a tiny malloc (tests/allocators/
// tiny.c) preloaded, one doing more work per malloc (instructions up, "more work"), one doing
// the same work with its reads a page apart (instructions equal, misses up), and one build
// against a copy of itself (instruction changes within 0.5%). callgrind cannot run an
// emulated worker: skipped under qemu.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::read_csv;
using testing::read_file;
using testing::run_cli;

#define ABENCH_SKIP_WITHOUT_CALLGRIND()                                                      \
  do {                                                                                       \
    ABENCH_SKIP_UNDER_EMULATION("callgrind cannot run an emulated worker");                  \
    if (access("/usr/bin/valgrind", X_OK) != 0) GTEST_SKIP() << "valgrind is not installed"; \
  } while (0)

// A short compare of two preloaded builds with --explain: its compare.csv rows. Both sides of
// a cell run the iteration count that fills `min_batch_ms` on the faster one.
std::vector<std::map<std::string, std::string>> explained_compare(const std::filesystem::path& out,
                                                                  const std::string& before, const std::string& after,
                                                                  const std::string& min_batch_ms = "5") {
  const auto result = run_cli({"compare", "--baseline", "preload=" + before, "--candidate", "preload=" + after,
                               "--matrix", "pair", "--workload", "pair,allocate", "--size", "32,4096", "--samples", "3",
                               "--min-batch-ms", min_batch_ms, "--explain", "--out", out.string()});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_TRUE(std::filesystem::exists(out / "explain" / "results.json"));
  return read_csv(out / "compare.csv");
}

double number(const std::map<std::string, std::string>& row, const std::string& column) {
  return std::stod(row.at(column));
}

// "same work, slower/faster ..." where the time was called, nothing where it was not.
bool reads_same_work_or_nothing(const std::map<std::string, std::string>& row) {
  const std::string& reading = row.at("reading");
  const bool called = row.at("verdict") == "slower" || row.at("verdict") == "faster";
  return called ? reading.rfind("same work, " + row.at("verdict"), 0) == 0 : reading.empty();
}

TEST(ExplainEndToEnd, MoreWorkInMallocIsInstructionsUpAndReadsMoreWork) {
  ABENCH_SKIP_WITHOUT_CALLGRIND();
  testing::TempDir dir;
  const auto rows = explained_compare(dir.path() / "c", testing::built::kTinyV1, testing::built::kTinyV2);
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    // The second build spins 400 times per malloc: hundreds of instructions more per operation.
    EXPECT_GT(number(row, "instructions_after") - number(row, "instructions_before"), 400) << row.at("workload");
    EXPECT_GT(number(row, "instructions_change"), 0.5);
    // Spinning is dearer than the instructions it adds: the reading may weigh the time against
    // them ("more work (+1571.0% instructions; time 92.9% above what it explains)").
    EXPECT_TRUE(std::string(row.at("reading")).starts_with("more work")) << row.at("reading");
  }
  const std::string markdown = read_file(dir.path() / "c" / "compare.md");
  EXPECT_NE(markdown.find("| more work"), std::string::npos) << markdown;
  const auto json = nlohmann::json::parse(read_file(dir.path() / "c" / "compare.json"));
  EXPECT_EQ(json["explain"]["processes_per_variant"], 2);
  EXPECT_TRUE(json["rows"][0]["reading"].get<std::string>().starts_with("more work")) << json["rows"][0]["reading"];

  // The hot path: malloc jumps to tiny_allocate, whose spin loop's bound is the difference
  // (0 in the first build, 400 in the second); free is the same code in both.
  const auto hot = dir.path() / "c" / "explain" / "hot-path";
  const auto index = nlohmann::json::parse(read_file(hot / "index.json"));
  std::map<std::string, int> changed;
  for (const auto& d : index["diffs"]) changed[d["function"]] = d["changed_lines"];
  ASSERT_TRUE(changed.contains("malloc") && changed.contains("free")) << index.dump(2);
  EXPECT_GT(changed["malloc"], 0);
  EXPECT_EQ(changed["free"], 0);
  const std::string listing = read_file(hot / "1-malloc.s");
  EXPECT_NE(listing.find("<malloc>:"), std::string::npos) << listing;
  EXPECT_NE(listing.find("<tiny_allocate>:"), std::string::npos) << "the callee is followed: " << listing;
  // Each instruction with its share of the cells' instructions: 400 turns of a six-instruction
  // loop per malloc make malloc's path nearly all the cells execute, more than in the first
  // build (where it is a small allocator's whole path, two thirds).
  const auto shares_in = [&](const char* file) {
    double sum = 0;
    for (const std::string& line : testing::split_lines(read_file(hot / file)))
      if (const std::size_t percent = line.find("% "); percent != std::string::npos && percent < 8)
        sum += std::stod(line.substr(0, percent));
    return sum;
  };
  EXPECT_GT(shares_in("1-malloc.s"), 90) << read_file(hot / "1-malloc.s");
  EXPECT_LT(shares_in("0-malloc.s"), shares_in("1-malloc.s") - 10) << read_file(hot / "0-malloc.s");
  const std::string diff = read_file(hot / "pair0-malloc.diff");
  EXPECT_NE(diff.find("tiny_allocate"), std::string::npos) << diff;
  // Only the loop differs: its bound, 400 - 1, where the first build has none (and the
  // branches and padding around it), not the rest of the function.
  EXPECT_LE(changed["malloc"], 16) << diff;
#if defined(__x86_64__)
  EXPECT_NE(diff.find("+cmp    $0x18f,%eax"), std::string::npos) << diff;
#endif
  const std::string html = read_file(dir.path() / "c" / "report.html");
  EXPECT_NE(html.find("<details class=\"hot-path\"><summary><code>malloc</code>: "), std::string::npos);
  EXPECT_NE(html.find("id=\"figure-work\""), std::string::npos) << "the time-against-instructions figure";
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "c" / "report" / "work.svg"));
}

TEST(ExplainEndToEnd, TheSameWorkWithFarReadsHasEqualInstructionsAndMoreMisses) {
  ABENCH_SKIP_WITHOUT_CALLGRIND();
  testing::TempDir dir;
  // The far reads cost about 6 us a malloc here, 300 times the near ones: at the near side's
  // 5 ms batch the far side's samples took 95 of the test's 107 s; 0.5 ms batches suffice for
  // what is checked (counts, and the reading of whatever the time says).
  const auto rows = explained_compare(dir.path() / "c", testing::built::kTinyV1, testing::built::kTinyV3, "0.5");
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_LT(std::abs(number(row, "instructions_change")), 0.005) << row.at("workload") << " " << row.at("size");
    // Eight reads a malloc, each a page apart in 64 MiB: all miss the simulated L1.
    EXPECT_GT(number(row, "l1_misses_after") - number(row, "l1_misses_before"), 6) << row.at("workload");
    // Whether the time was called is the machine's; the reading never says the work changed,
    // and a slower cell names the misses.
    EXPECT_TRUE(reads_same_work_or_nothing(row)) << row.at("reading");
    if (row.at("verdict") == "slower") {
      EXPECT_EQ(row.at("reading").rfind("same work, slower (", 0), 0u) << row.at("reading");
    }
  }
}

TEST(ExplainEndToEnd, ABuildAgainstACopyOfItselfCountsTheSame) {
  ABENCH_SKIP_WITHOUT_CALLGRIND();
  testing::TempDir dir;
  const auto copy = dir.path() / "libtiny-copy.so";
  std::filesystem::copy_file(testing::built::kTinyV1, copy);
  const auto rows = explained_compare(dir.path() / "c", testing::built::kTinyV1, copy.string());
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_LE(std::abs(number(row, "instructions_change")), 0.005) << row.at("workload") << " " << row.at("size");
    EXPECT_LE(number(row, "work_repeatability"), 0.005);
    EXPECT_TRUE(reads_same_work_or_nothing(row)) << row.at("reading");
  }
  // The same code on both sides: every function's diff is empty.
  const auto index = nlohmann::json::parse(read_file(dir.path() / "c" / "explain" / "hot-path" / "index.json"));
  ASSERT_FALSE(index["diffs"].empty());
  for (const auto& d : index["diffs"]) EXPECT_TRUE(d["identical"].get<bool>()) << d.dump();
}

TEST(ExplainEndToEnd, RunPrintsTimeBesideInstructionsAndWritesExplainCsv) {
  ABENCH_SKIP_WITHOUT_CALLGRIND();
  testing::TempDir dir;
  const auto result = run_cli(
      {"run",    "--matrix",    "quick",   "--backend", "system",      "--workload", "pair",
       "--size", "32,262144",   "--align", "1",         "--live",      "1",          "--samples",
       "3",      "--processes", "1",       "--explain", "--no-report", "--out",      (dir.path() / "r").string()});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("instr/op  branch misses/op  memory accesses/op"), std::string::npos) << result.out;
  const auto rows = read_csv(dir.path() / "r" / "explain.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_GT(number(rows[0], "instructions"), 10);
  EXPECT_GT(number(rows[0], "memory_accesses"), 1);
  EXPECT_GE(number(rows[0], "branch_misses"), 0);
  EXPECT_GT(number(rows[0], "ns_per_op"), 0);
  // 256 KiB is served by mmap, which callgrind cannot see: no figure, and the reason.
  EXPECT_EQ(rows[1].at("instructions"), "");
  EXPECT_NE(rows[1].at("work_unavailable").find("mmap"), std::string::npos) << rows[1].at("work_unavailable");
}

TEST(ExplainEndToEnd, IsRefusedWhereItCannotRunBeforeAnythingIsMeasured) {
  testing::TempDir dir;
  const auto result = run_cli(
      {"run", "--matrix", "quick", "--measure", "instructions", "--explain", "--out", (dir.path() / "r").string()});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("option --explain: --measure instructions already counts"), std::string::npos)
      << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "r" / "results.json"));
}

}  // namespace
}  // namespace abench
