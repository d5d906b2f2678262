// abench compare end to end: the example plugins in two revisions, identical variants,
// allocator subjects, preloads, other worker builds, and bad variants. Only counts and
// the presence of verdicts are asserted, never a timing.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;

// The file a symbol comes from (libm's path differs by architecture and distribution).
std::string library_of(void* symbol) {
  Dl_info info{};
  EXPECT_NE(dladdr(symbol, &info), 0);
  return info.dli_fname ? info.dli_fname : "";
}

// Small and fast: the quick matrix's buffer workloads at two sizes, one live count, and
// compare's default number of processes (as many rounds as a verdict at 95% needs).
// Under qemu-user one size: every worker process costs about a quarter of a second to start
// there, and the second size runs the same code.
std::size_t sizes_compared() { return testing::emulator_here() ? 1 : 2; }

std::vector<std::string> compare_args(const std::string& baseline, const std::string& candidate,
                                      const std::filesystem::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"compare",
                                "--baseline",
                                baseline,
                                "--candidate",
                                candidate,
                                "--matrix",
                                "quick",
                                "--size",
                                sizes_compared() == 1 ? "64" : "64,4096",
                                "--live",
                                "1",
                                "--samples",
                                "3",
                                "--min-batch-ms",
                                "0.2",
                                "--out",
                                out.string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(CompareEndToEnd, TwoRevisionsOfTheExampleLibrary) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  // Under qemu one backend: every worker process costs about a quarter of a second to start
  // there (this compare starts 680), and the plugin's calls are the same over each backend.
  const std::size_t backends = testing::emulator_here() ? 1 : 3;
  const CliResult r = run_cli(
      compare_args(std::string("plugin=") + testing::built::kAbufV1 + ",label=v1",
                   std::string("plugin=") + testing::built::kAbufV2 + ",label=v2", out,
                   backends == 1 ? std::vector<std::string>{"--backend", "system"} : std::vector<std::string>{}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // backends x 4 workloads x sizes x 2 alignments, every one with a row and a verdict.
  const auto rows = read_csv(out / "compare.csv");
  const std::size_t cells = backends * 4u * sizes_compared() * 2u;
  ASSERT_EQ(rows.size(), cells);
  for (const auto& row : rows) {
    EXPECT_NE(row.at("verdict"), "failed");
    EXPECT_FALSE(row.at("change").empty());
    // v1 pads every request by the alignment, v2 does not. How far v1's padded block grows
    // before its next request depends on the address malloc returned (the data pointer is
    // rounded up inside it), so where the buffer grows the totals can meet: then the
    // number of requests differs (v1 gets more capacity from each).
    const double bytes_before = std::stod(row.at("requested_bytes_before"));
    const double bytes_after = std::stod(row.at("requested_bytes_after"));
    if (row.at("workload") == "append")
      EXPECT_TRUE(bytes_before > bytes_after || row.at("requests_before") != row.at("requests_after"))
          << row.at("baseline") << " " << row.at("size") << " " << bytes_before << " " << bytes_after;
    else
      EXPECT_GT(bytes_before, bytes_after) << row.at("baseline") << " " << row.at("workload") << " " << row.at("size");
  }
  const auto json = nlohmann::json::parse(read_file(out / "compare.json"));
  EXPECT_NE(json["method"]["interval"].get<std::string>().find("sign-test"), std::string::npos);
  EXPECT_EQ(json["metric"], "ns_per_op");
  EXPECT_TRUE(json["rows"][0].contains("before_ns_per_op"));
  EXPECT_EQ(json["geomean_change_by_backend"].size(), backends);
  EXPECT_EQ(json["judged"], cells);
  EXPECT_EQ(json["undecided"], 0);
  // compare's default: 6 processes a side, the fewest whose paired rounds reach 95%, though
  // the quick matrix runs 2; every judged interval then covers 1 - 2/64.
  EXPECT_EQ(json["processes_per_side"], 6);
  for (const auto& row : json["rows"]) EXPECT_DOUBLE_EQ(row["coverage"].get<double>(), 1 - 2.0 / 64);
  EXPECT_NEAR(json["expected_false_calls"].get<double>(), static_cast<double>(cells) * 2.0 / 64, 1e-9);
  const std::string markdown = read_file(out / "compare.md");
  EXPECT_NE(markdown.find("| backend | workload | size | align | live | before ns/op | after ns/op |"),
            std::string::npos);
  EXPECT_TRUE(markdown.starts_with("### abench compare: ")) << markdown;
  EXPECT_NE(markdown.find("(overall "), std::string::npos);
  EXPECT_LT(markdown.find("#### Changed cells"), markdown.find("<details>"));
  EXPECT_NE(markdown.find(fmt::format("With nothing changed, chance alone would call about {:.1f} of them",
                                      static_cast<double>(cells) * 2.0 / 64)),
            std::string::npos)
      << markdown;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_NE(results["variants"][0]["subject"].get<std::string>().find("plugin abuf 1 (padded)"), std::string::npos);
}

// The same two revisions written in Rust (examples/rust-buffer over std::alloc, built by
// cargo): compare measures them on every buffer workload through the plugin ABI, and the
// counting runs see the padded revision ask for more bytes than the exact one.
TEST(CompareEndToEnd, TwoRevisionsOfTheRustBufferLibrary) {
  if (*testing::built::kRustBufferV1 == '\0')
    GTEST_SKIP() << "this build has no Rust example: cargo and rustc are host-only (examples/CMakeLists.txt)";
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(compare_args(std::string("plugin=") + testing::built::kRustBufferV1 + ",label=rust-v1",
                                           std::string("plugin=") + testing::built::kRustBufferV2 + ",label=rust-v2",
                                           out, {"--backend", "system,jemalloc"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "compare.csv");
  ASSERT_EQ(rows.size(), 2u * 4u * sizes_compared() * 2u);
  std::set<std::string> workloads;
  for (const auto& row : rows) {
    workloads.insert(row.at("workload"));
    EXPECT_NE(row.at("verdict"), "failed") << row.at("workload") << " " << row.at("size");
    EXPECT_FALSE(row.at("change").empty());
    const double bytes_before = std::stod(row.at("requested_bytes_before"));
    const double bytes_after = std::stod(row.at("requested_bytes_after"));
    if (row.at("workload") == "allocate" || row.at("workload") == "zeroed") {
      EXPECT_GT(bytes_before, bytes_after) << row.at("baseline") << " " << row.at("workload") << " " << row.at("size");
    }
  }
  EXPECT_EQ(workloads, (std::set<std::string>{"allocate", "zeroed", "grow", "append"}));
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  const std::string before = results["variants"][0]["subject"], after = results["variants"][1]["subject"];
  EXPECT_NE(before.find("plugin rust-buffer 1 (padded)"), std::string::npos) << before;
  EXPECT_NE(after.find("plugin rust-buffer 2 (exact)"), std::string::npos) << after;
}

TEST(CompareEndToEnd, TooFewRoundsForTheConfidenceAreUndecidedAndSaySo) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const std::string plugin = std::string("plugin=") + testing::built::kAbufV2 + ",backend=system";
  const CliResult r = run_cli(compare_args(plugin, plugin, out, {"--processes", "3", "--workload", "allocate"}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "compare.csv");
  const std::size_t cells = sizes_compared() * 2u;
  ASSERT_EQ(rows.size(), cells);
  for (const auto& row : rows)
    EXPECT_EQ(row.at("verdict"), "undecided") << "3 rounds cannot give a 95% verdict; none may be guessed";
  const auto json = nlohmann::json::parse(read_file(out / "compare.json"));
  EXPECT_EQ(json["undecided"], cells);
  EXPECT_EQ(json["rows"][0]["problem"], "3 rounds cannot reach 95.0% (at most 75.0%): use --processes 6");
  const std::string markdown = read_file(out / "compare.md");
  EXPECT_NE(markdown.find("| undecided: 3 rounds cannot reach 95.0% (at most 75.0%): use --processes 6 |"),
            std::string::npos)
      << markdown;
  EXPECT_NE(markdown.find(std::to_string(cells) + " cells undecided"), std::string::npos);
  // At 99% the default rounds follow: 8. The gate of that compare judges at 99% too, and
  // both files say so. (--allow-unclear: whether 8 rounds narrow every interval below 50% is
  // the machine's noise, not this test's question; under qemu one reached +76%. Exit 1 too:
  // in one sanitized CI suite this A/A, unconfirmed, called a cell +54.7% [+10.0%, +170.5%]
  // slower, every round past +10%; whether an unchanged build is ever a regression is the
  // question of CiGate's A/A test and of issue 48, a bias between the sides, not this one's.)
  const CliResult strict = run_cli(compare_args(plugin, plugin, dir.path() / "strict",
                                                {"--confidence", "0.99", "--workload", "allocate", "--gate",
                                                 "--threshold", "50", "--no-confirm", "--allow-unclear"}));
  ASSERT_TRUE(strict.exit_code == 0 || strict.exit_code == 1) << strict.exit_code << strict.out << strict.err;
  const auto strict_compare = nlohmann::json::parse(read_file(dir.path() / "strict" / "compare.json"));
  EXPECT_EQ(strict_compare["processes_per_side"], 8);
  EXPECT_EQ(strict_compare["method"]["confidence"], 0.99);
  const auto strict_gate = nlohmann::json::parse(read_file(dir.path() / "strict" / "gate.json"));
  EXPECT_EQ(strict_gate["confidence"], 0.99);
  for (const auto& cell : strict_gate["cells"]) EXPECT_GE(cell["coverage"].get<double>(), 0.99) << cell.dump();
}

TEST(CompareEndToEnd, IdenticalPluginsShowNoChangeInCountsAndAVerdictForEveryCell) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const std::string v2 = std::string("plugin=") + testing::built::kAbufV2;
  const CliResult r = run_cli(compare_args(v2 + ",backend=mimalloc", v2 + ",backend=mimalloc", out));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "compare.csv");
  ASSERT_EQ(rows.size(), 4u * sizes_compared() * 2u);
  for (const auto& row : rows) {
    EXPECT_TRUE(row.at("verdict") == "same" || row.at("verdict") == "unclear" || row.at("verdict") == "slower" ||
                row.at("verdict") == "faster");
    EXPECT_EQ(row.at("requested_bytes_before"), row.at("requested_bytes_after"));
    EXPECT_EQ(row.at("requests_before"), row.at("requests_after"));
    EXPECT_EQ(row.at("usable_bytes_before"), row.at("usable_bytes_after"));
  }
}

TEST(CompareEndToEnd, BothSidesOfACellRunAtOneIterationCount) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(compare_args("backend=system,policy=padded", "backend=system,policy=exact", out,
                                           {"--processes", "2", "--interleave", "process"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  const auto compare = nlohmann::json::parse(read_file(out / "compare.json"));
  for (const auto& row : compare["rows"]) {
    std::set<std::uint64_t> counts;
    for (const char* side : {"before_cell", "after_cell"})
      for (const auto& p : results["cells"][row[side].get<int>()]["processes"])
        counts.insert(p["iterations"].get<std::uint64_t>());
    EXPECT_EQ(counts.size(), 1u) << row.dump();
  }
  // Processes alternate: round 1 baseline first, round 2 candidate first.
  const auto& workers = results["workers"];
  std::vector<std::string> timed;
  for (const auto& w : workers)
    if (w["mode"] == "time") timed.push_back(w["variant"]);
  EXPECT_EQ(timed, (std::vector<std::string>{"system/padded", "system/exact", "system/exact", "system/padded"}));
}

// Pairs start up ahead of their turn on abench's other CPUs (when it has one: not on a
// one-CPU machine), and every sample still runs on the measured CPU, as the worker saw it.
void expect_samples_on_the_measured_cpu(const nlohmann::json& results, bool start_ahead) {
  const auto& conditions = results["conditions"];
  const int measured = conditions["allowed_cpus"].back().get<int>();
  EXPECT_EQ(results["protocol"]["start_ahead"], start_ahead);
  const auto beside = conditions["start_ahead_cpus"].get<std::vector<int>>();
  if (start_ahead && conditions["allowed_cpus"].size() > 1)
    EXPECT_FALSE(beside.empty()) << conditions.dump();
  else
    EXPECT_TRUE(beside.empty()) << conditions.dump();
  EXPECT_EQ(std::count(beside.begin(), beside.end(), measured), 0);
  int processes = 0;
  for (const auto& cell : results["cells"])
    for (const auto& p : cell["processes"]) {
      EXPECT_EQ(p["cpu"], measured) << cell["variant"] << " round " << p["round"];
      ++processes;
    }
  EXPECT_GT(processes, 0);
}

// By default the two sides are paired cell by cell: each cell a fresh process, the two sides'
// processes of a cell back to back, which side goes first alternating by round.
TEST(CompareEndToEnd, TheTwoSidesOfACellRunBackToBack) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli(
      compare_args("backend=system,policy=padded", "backend=system,policy=exact", out, {"--workload", "allocate"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(results["protocol"]["process_mode"], "fresh-process-per-cell");
  std::vector<nlohmann::json> timed;
  for (const auto& w : results["workers"])
    if (w["mode"] == "time") timed.push_back(w);
  ASSERT_EQ(timed.size(), sizes_compared() * 2u * 2u * 6u);  // sizes x 2 alignments, 2 sides, 6 rounds
  const auto& cells = results["cells"];
  for (std::size_t i = 0; i + 1 < timed.size(); i += 2) {
    ASSERT_EQ(timed[i]["cells"].size(), 1u);
    const auto& a = cells[timed[i]["cells"][0].get<int>()];
    const auto& b = cells[timed[i + 1]["cells"][0].get<int>()];
    EXPECT_NE(a["variant"], b["variant"]);
    for (const char* axis : {"workload", "size", "requested_align", "preferred_align", "live"})
      EXPECT_EQ(a[axis], b[axis]);
    EXPECT_EQ(timed[i]["round"], timed[i + 1]["round"]);
    // Round 1 baseline first, round 2 candidate first, ...
    EXPECT_EQ(a["variant"] == "system/padded", timed[i]["round"].get<int>() % 2 == 1) << timed[i].dump();
  }
  expect_samples_on_the_measured_cpu(results, true);
}

TEST(CompareEndToEnd, WithoutStartAheadAPairStartsWhenItsTurnComes) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r =
      run_cli(compare_args("backend=system,policy=padded", "backend=system,policy=exact", out,
                           {"--workload", "allocate", "--processes", "2", "--no-counts", "--no-start-ahead"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_samples_on_the_measured_cpu(nlohmann::json::parse(read_file(out / "results.json")), false);
}

TEST(CompareEndToEnd, AllocatorSubjectPreloadAndAnotherWorkerBuild) {
  testing::TempDir dir;
  const CliResult subject =
      run_cli(compare_args(std::string("plugin=") + testing::built::kMallocSubject + ",backend=jemalloc",
                           "backend=jemalloc", dir.path() / "subject", {"--workload", "append"}));
  ASSERT_EQ(subject.exit_code, 0) << subject.err;
  for (const auto& row : read_csv(dir.path() / "subject" / "compare.csv")) EXPECT_NE(row.at("verdict"), "failed");

  const CliResult preload =
      run_cli(compare_args("backend=system", std::string("preload=") + testing::built::kJemallocLibrary,
                           dir.path() / "preload", {"--workload", "allocate"}));
  ASSERT_EQ(preload.exit_code, 0) << preload.err;
  const auto results = nlohmann::json::parse(read_file(dir.path() / "preload" / "results.json"));
  EXPECT_NE(results["variants"][1]["malloc_object"].get<std::string>().find("libjemalloc"), std::string::npos);
  EXPECT_NE(results["variants"][1]["allocator_version"].get<std::string>().find("jemalloc 5"), std::string::npos);

  const CliResult exe = run_cli(compare_args(
      "backend=system",
      std::string("exe=") + testing::built::kWorkerSystem + ",env=GLIBC_TUNABLES=glibc.malloc.tcache_count=0",
      dir.path() / "exe", {"--workload", "allocate"}));
  ASSERT_EQ(exe.exit_code, 0) << exe.err;
  const auto exe_results = nlohmann::json::parse(read_file(dir.path() / "exe" / "results.json"));
  EXPECT_EQ(exe_results["variants"][1]["env"]["GLIBC_TUNABLES"], "glibc.malloc.tcache_count=0");
}

struct BadVariant {
  std::string baseline, candidate, must_mention;
};

TEST(CompareEndToEnd, BadVariantsExitTwoBeforeAnythingRuns) {
  const std::vector<BadVariant> cases{
      {"plugin=/no/such/libx.so", "backend=system", "plugin '/no/such/libx.so' does not exist"},
      {std::string("plugin=") + testing::built::kJemallocLibrary, "policy=exact", "cannot load plugin"},
      {"plugin=" + library_of(reinterpret_cast<void*>(&cbrt)), "policy=exact", "does not export abench_plugin_v1"},
      {std::string("plugin=") + testing::built::kWrongAbiPlugin, "policy=exact",
       "has ABI version 2, this worker speaks 1"},
      {"exe=/bin/true,backend=system", "backend=system", "is not an abench worker"},
      {std::string("exe=") + testing::built::kWorkerMimalloc + ",backend=system", "backend=system",
       "is the worker of backend 'mimalloc'"},
      {"backend=hoard", "backend=system", "unknown backend 'hoard'"},
      {"backend=system,policy=lazy", "backend=system", "unknown policy 'lazy'"},
      {"backend=system", "policy=exact", "--baseline stands for 1 variants and --candidate for 3"},
      {std::string("preload=") + testing::built::kMallocSubject, "backend=system",
       "refused: refusing to run: malloc is served by"},
  };
  for (const auto& c : cases) {
    testing::TempDir dir;
    const CliResult r = run_cli(compare_args(c.baseline, c.candidate, dir.path() / "out"));
    EXPECT_EQ(r.exit_code, 2) << c.baseline << "\n" << r.err;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "out")) << c.baseline;
  }
}

// --until-interval: a target no interval can reach runs every cell to the cap; with a target
// an interval can reach, a cell stops early only once its interval is that narrow. Both state
// it in every file. (Which cells stop early is timing; the rule itself is tested on fixed
// figures in adaptive_rounds_test.cc.)
TEST(CompareEndToEnd, UntilIntervalAddsRoundsUpToTheCapOnlyWhereAnIntervalIsStillWide) {
  testing::TempDir dir;
  for (const std::string target : {"0.01", "100"}) {
    const bool unreachable = target == "0.01";  // no interval is 0.01% wide
    const auto out = dir.path() / ("cmp-" + target);
    const CliResult r = run_cli({"compare",
                                 "--baseline",
                                 "backend=system",
                                 "--candidate",
                                 "backend=system,label=again",
                                 "--matrix",
                                 "quick",
                                 "--workload",
                                 "allocate",
                                 "--size",
                                 "64,4096",
                                 "--align",
                                 "256",
                                 "--live",
                                 "1",
                                 "--samples",
                                 "3",
                                 "--min-batch-ms",
                                 "2",
                                 "--no-counts",
                                 "--no-report",
                                 "--until-interval",
                                 target,
                                 "--max-rounds",
                                 "8",
                                 "--out",
                                 out.string()});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const auto results = nlohmann::json::parse(read_file(out / "results.json"));
    EXPECT_EQ(results["protocol"]["until_interval"]["width_percent"], std::stod(target));
    EXPECT_EQ(results["protocol"]["until_interval"]["max_rounds"], 8);
    EXPECT_EQ(results["protocol"]["processes"], 6);
    std::set<std::size_t> rounds_seen;
    for (const auto& cell : results["cells"]) {
      const std::size_t rounds = cell["processes"].size();
      if (unreachable) {
        EXPECT_EQ(rounds, 8u) << cell.dump().substr(0, 300);
      }
      EXPECT_GE(rounds, 6u);
      EXPECT_LE(rounds, 8u);
      std::set<int> seen;
      for (const auto& p : cell["processes"]) seen.insert(p["round"].get<int>());
      EXPECT_EQ(seen.size(), rounds);
      EXPECT_EQ(*seen.begin(), 1);  // results.json counts rounds from 1
      EXPECT_EQ(*seen.rbegin(), static_cast<int>(rounds));
      rounds_seen.insert(rounds);
    }
    const std::string md = read_file(out / "compare.md");
    EXPECT_NE(md.find(fmt::format("{} to {} rounds a cell", *rounds_seen.begin(), *rounds_seen.rbegin())),
              std::string::npos)
        << md;
    for (const auto& row : read_csv(out / "compare.csv")) EXPECT_NE(row.at("verdict"), "failed");
    const auto json = nlohmann::json::parse(read_file(out / "compare.json"));
    for (const auto& row : json["rows"]) {
      const auto rounds = row["replicates"].get<std::size_t>();
      EXPECT_TRUE(rounds_seen.contains(rounds));
      EXPECT_NE(md.find(fmt::format(" in {} |", rounds)), std::string::npos) << md;
      // A cell stopped before the cap only because its interval had narrowed to the target.
      if (rounds < 8u) {
        const double width = row["interval"][1].get<double>() - row["interval"][0].get<double>();
        EXPECT_LE(width, std::stod(target) / 100) << row.dump();
      }
    }
    if (unreachable) {
      EXPECT_NE(r.err.find("round 8: 2 cells still wider than 0.01%"), std::string::npos) << r.err;
    }
  }
}

// --budget: rounds toward --detect's width (an interval that narrow is resolved: same or a
// call) while the time allows; every file says so. (How the cells are chosen is tested on
// fixed figures in adaptive_rounds_test.cc; the time taken is not asserted here.)
TEST(CompareEndToEnd, ABudgetAddsRoundsTowardTheDetectWidthAndEveryFileSaysSo) {
  testing::TempDir dir;
  const auto out = dir.path() / "cmp";
  const CliResult r = run_cli({"compare",
                               "--baseline",
                               "backend=system",
                               "--candidate",
                               "backend=system,label=again",
                               "--matrix",
                               "quick",
                               "--workload",
                               "allocate",
                               "--size",
                               "64,4096",
                               "--align",
                               "256",
                               "--live",
                               "1",
                               "--samples",
                               "3",
                               "--min-batch-ms",
                               "0.5",
                               "--no-counts",
                               "--no-report",
                               "--detect",
                               "2",
                               "--budget",
                               "5s",
                               "--out",
                               out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("--budget 0:05: measured in "), std::string::npos) << r.err;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  const auto& adaptive = results["protocol"]["until_interval"];
  EXPECT_EQ(adaptive["width_percent"], 2);  // --detect's
  EXPECT_EQ(adaptive["budget_seconds"], 5);
  EXPECT_EQ(adaptive["max_rounds"], 100);
  EXPECT_NE(adaptive["budget_rule"].get<std::string>().find("never by the verdict"), std::string::npos);
  const auto json = nlohmann::json::parse(read_file(out / "compare.json"));
  EXPECT_EQ(json["until_interval"]["budget_seconds"], 5);
  for (const auto& row : json["rows"]) {
    EXPECT_GE(row["replicates"].get<int>(), 6);
    EXPECT_TRUE(row["detectable_change"].is_number()) << row.dump();
    // An interval as narrow as --detect is resolved: within it, or clear of zero.
    const double low = row["interval"][0].get<double>(), high = row["interval"][1].get<double>();
    if (high - low <= 0.02) {
      EXPECT_NE(row["verdict"], "unclear") << row.dump();
    }
  }
  const std::string md = read_file(out / "compare.md");
  EXPECT_NE(md.find("(--budget 0:05: 6 rounds, then one more for the cells whose interval was wider than 2%"),
            std::string::npos)
      << md;
  // A file claiming a budget beyond a week is refused by the reader.
  auto edited = results;
  edited["protocol"]["until_interval"]["budget_seconds"] = 1e9;
  std::ofstream(out / "results.json") << edited.dump();
  const CliResult report = run_cli({"report", out.string()});
  EXPECT_EQ(report.exit_code, 2);
  EXPECT_NE(report.err.find("budget_seconds"), std::string::npos) << report.err;
}

// Under a budget a compare's processes are cheaper unless the command line says otherwise.
TEST(CompareEndToEnd, ABudgetTakesCheaperProcessesUnlessTold) {
  testing::TempDir dir;
  for (const bool told : {false, true}) {
    const auto out = dir.path() / (told ? "told" : "default");
    std::vector<std::string> args{"compare",
                                  "--baseline",
                                  "backend=system",
                                  "--candidate",
                                  "backend=system,label=again",
                                  "--matrix",
                                  "quick",
                                  "--workload",
                                  "allocate",
                                  "--size",
                                  "64",
                                  "--align",
                                  "256",
                                  "--live",
                                  "1",
                                  "--no-counts",
                                  "--no-report",
                                  "--budget",
                                  "1s",
                                  "--out",
                                  out.string()};
    if (told) args.insert(args.end(), {"--samples", "3", "--min-batch-ms", "0.5"});
    const CliResult r = run_cli(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto protocol = nlohmann::json::parse(read_file(out / "results.json"))["protocol"];
    EXPECT_EQ(protocol["samples"], told ? 3 : 5);
    EXPECT_EQ(protocol["min_batch_ms"], told ? 0.5 : 10.0);
  }
}

TEST(RunEndToEnd, UntilIntervalGivesEveryCellAProcessOfItsOwnAndRoundsUpToTheCap) {
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  const CliResult r = run_cli({"run",
                               "--matrix",
                               "quick",
                               "--backend",
                               "system,mimalloc",
                               "--workload",
                               "allocate",
                               "--size",
                               "64",
                               "--live",
                               "1",
                               "--samples",
                               "3",
                               "--min-batch-ms",
                               "0.2",
                               "--processes",
                               "2",
                               "--until-interval",
                               "0.01",
                               "--max-rounds",
                               "7",
                               "--no-counts",
                               "--no-report",
                               "--out",
                               out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(results["protocol"]["process_mode"], "fresh-process-per-cell");
  std::map<int, int> cells_of_worker;
  for (const auto& w : results["workers"]) cells_of_worker[w["pid"].get<int>()] = static_cast<int>(w["cells"].size());
  for (const auto& [pid, cells] : cells_of_worker) EXPECT_EQ(cells, 1) << pid;
  ASSERT_EQ(results["cells"].size(), 4u);
  for (const auto& cell : results["cells"]) {
    EXPECT_EQ(cell["status"], "ok");
    EXPECT_EQ(cell["processes"].size(), 7u);
  }
}

}  // namespace
}  // namespace abench
