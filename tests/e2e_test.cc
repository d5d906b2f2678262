// End-to-end: drives the real abench CLI and its real workers, and reads the files they
// write. Tiny protocols keep it to seconds; nothing here asserts on a timing.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "harness/layout.h"
#include "harness/protocol.h"
#include "src/plan/protocol_fields.h"
#include "src/run/process_launcher.h"
#include "src/stats/statistics.h"
#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_csv;
using testing::read_file;
using testing::run_cli;
using testing::split_lines;

const std::vector<std::string> kCountColumns{"requests",
                                             "frees",
                                             "requested_bytes",
                                             "final_request_bytes_min",
                                             "final_request_bytes_max",
                                             "usable_bytes_min",
                                             "usable_bytes_max",
                                             "block_usable_bytes_min",
                                             "block_usable_bytes_max",
                                             "fragmentation_bytes_min",
                                             "fragmentation_bytes_max",
                                             "peak_live_bytes",
                                             "peak_rss_bytes",
                                             "minor_faults",
                                             "allocator_resident_bytes",
                                             "count_check"};

std::vector<std::string> tiny_run_args(const std::string& out) {
  return {"run",
          "--matrix",
          "quick",
          "--backend",
          "system,mimalloc,jemalloc",
          "--policy",
          "exact,padded",
          "--workload",
          "allocate,append,noop",
          "--size",
          "64",
          "--align",
          "256",
          "--live",
          "1,4",
          "--min-batch-ms",
          "0.5",
          "--samples",
          "3",
          "--processes",
          "2",
          "--out",
          out};
}

TEST(EndToEnd, TinyRunWritesCompleteJsonAndCsv) {
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  const CliResult r = run_cli(tiny_run_args(out.string()));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("ns/op"), std::string::npos) << r.out;

  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(json["schema"], "abench.results");
  EXPECT_EQ(json["schema_version"], 1);
  EXPECT_TRUE(json["complete"].get<bool>());
  for (const char* key : {"cpu_model", "kernel", "libc", "compiler", "cxx_flags", "abench_git_revision",
                          "frequency_governor", "turbo", "hypervisor", "logical_cpus"})
    EXPECT_TRUE(json["conditions"].contains(key)) << key;
  EXPECT_EQ(json["protocol"]["processes"], 2);
  EXPECT_EQ(json["protocol"]["process_mode"], "process-per-variant");
  ASSERT_EQ(json["variants"].size(), 6u);
  for (const auto& v : json["variants"]) EXPECT_FALSE(v["allocator_version"].get<std::string>().empty());
  for (const auto& w : json["workers"]) EXPECT_TRUE(w["pinned_cpu"].is_number()) << w.dump();

  // 3 backends x 2 policies x 3 workloads x 2 live counts.
  ASSERT_EQ(json["cells"].size(), 36u);
  for (const auto& cell : json["cells"]) {
    ASSERT_EQ(cell["status"], "ok") << cell.dump();
    ASSERT_EQ(cell["processes"].size(), 2u);
    // The aggregate is the median of the process medians, each the median of its samples.
    std::vector<double> process_medians;
    for (const auto& p : cell["processes"]) {
      const auto samples = p["samples_ns_per_op"].get<std::vector<double>>();
      ASSERT_EQ(samples.size(), 3u);
      EXPECT_DOUBLE_EQ(p["median_ns_per_op"].get<double>(), median(samples));
      process_medians.push_back(median(samples));
    }
    EXPECT_DOUBLE_EQ(cell["ns_per_op"].get<double>(), median(process_medians));
    EXPECT_DOUBLE_EQ(cell["process_min_ns"].get<double>(), minimum(process_medians));
  }

  const auto lines = split_lines(read_file(out / "results.csv"));
  ASSERT_EQ(lines.size(), 37u);
  EXPECT_EQ(lines[0].rfind("side,variant,backend,policy,workload,size,requested_align,preferred_align,live,ns_per_op,"
                           "process_min_ns,process_max_ns,best_ns_per_op,iterations,samples,processes",
                           0),
            0u);
  std::set<std::string> backends;
  for (const auto& row : read_csv(out / "results.csv")) {
    backends.insert(row.at("backend"));
    EXPECT_EQ(row.at("size"), "64");
    EXPECT_EQ(row.at("requested_align"), "1");
    EXPECT_EQ(row.at("preferred_align"), "256");
    EXPECT_EQ(row.at("samples"), "3");
    EXPECT_EQ(row.at("processes"), "2");
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_FALSE(row.at("ns_per_op").empty());
  }
  EXPECT_EQ(backends, (std::set<std::string>{"system", "mimalloc", "jemalloc"}));
  // No temporary file is left behind.
  for (const auto& e : std::filesystem::directory_iterator(out))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(EndToEnd, QuickMatrixHasEveryCountColumnForEveryCell) {
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  // The quick matrix's axes with both policies; the timing protocol cut to the bone, as
  // only the counts are checked here. Under qemu-user, where each of the 576 workers costs a
  // quarter of a second, one policy: the architecture's counts are the question there.
  const bool emulated = testing::emulator_here().has_value();
  const CliResult r = run_cli({"run", "--matrix", "quick", "--policy", emulated ? "exact" : "exact,padded", "--samples",
                               "1", "--processes", "1", "--min-batch-ms", "0.05", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 3u * (emulated ? 1u : 2u) * 4u * 3u * 2u * 2u);
  for (const auto& row : rows) {
    for (const auto& column : kCountColumns)
      EXPECT_FALSE(row.at(column).empty())
          << column << " empty for " << row.at("backend") << " " << row.at("workload") << " " << row.at("size");
    EXPECT_EQ(row.at("count_check"), "ok");
    EXPECT_NE(row.at("requests"), "0");
    EXPECT_EQ(row.at("frees"), "1");
    if (row.at("policy") == "exact") {
      EXPECT_EQ(row.at("usable_bytes_min"), row.at("usable_bytes_max"));
    }
  }
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  for (const auto& cell : json["cells"]) {
    ASSERT_TRUE(cell["counts"].is_object()) << cell.dump();
    EXPECT_FALSE(cell["counts"]["allocator_resident_source"].get<std::string>().empty());
  }
}

TEST(EndToEnd, NoCountsSkipsTheCountingRuns) {
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  const CliResult r = run_cli({"run", "--matrix", "quick", "--no-counts", "--workload", "allocate", "--size", "64",
                               "--samples", "1", "--processes", "1", "--min-batch-ms", "0.05", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& row : read_csv(out / "results.csv")) {
    EXPECT_EQ(row.at("requests"), "");
    EXPECT_EQ(row.at("count_check"), "");
    EXPECT_FALSE(row.at("ns_per_op").empty());
  }
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_FALSE(json["protocol"]["counts"].get<bool>());
  for (const auto& w : json["workers"]) EXPECT_EQ(w["mode"], "time");
}

TEST(EndToEnd, PairMatrixRunsOnEveryBackendWithABestOfColumn) {
  testing::TempDir dir;
  const auto out = dir.path() / "pair";
  // Under qemu an iteration of 64 pairs takes about 0.3 ms: at 0.2 ms batches it is a long
  // batch (1.2 batches or more), whose process takes fewer than 7 samples (docs/measurement.md).
  const char* batch_ms = testing::emulator_here() ? "5" : "0.2";
  const CliResult r = run_cli({"run", "--matrix", "pair", "--size", "32", "--samples", "7", "--processes", "1",
                               "--min-batch-ms", batch_ms, "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 4u * 3u);  // 4 backends x pair, batch, batch-reverse
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_EQ(row.at("samples"), "7");
    EXPECT_LE(std::stod(row.at("best_ns_per_op")), std::stod(row.at("ns_per_op")));
    EXPECT_EQ(row.at("requests"), "1");
    EXPECT_EQ(row.at("frees"), "1");
    EXPECT_EQ(row.at("count_check"), "ok");
  }
}

TEST(EndToEnd, CrossThreadMatrixRunsAndIsRefusedOnOneCpu) {
  testing::TempDir dir;
  // Under qemu one handover takes milliseconds: batches long enough to hold several. Natively
  // 5 ms: at 0.5 ms one descheduling of the consumer on a loaded machine made a whole batch of
  // one object, and warm-up stopped there (seen in a clean-clone CI run beside two builds).
  const char* batch_ms = testing::emulator_here() ? "100" : "5";
  const std::vector<std::string> args{"run", "--matrix",    "xthread", "--size",         "64",    "--samples",
                                      "3",   "--processes", "1",       "--min-batch-ms", batch_ms};
  auto with_out = [&](const char* name) {
    auto a = args;
    a.insert(a.end(), {"--out", (dir.path() / name).string()});
    return a;
  };
  const CliResult r = run_cli(with_out("two"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto json = nlohmann::json::parse(read_file(dir.path() / "two" / "results.json"));
  ASSERT_EQ(json["cells"].size(), 4u);
  for (const auto& cell : json["cells"]) {
    EXPECT_EQ(cell["status"], "ok") << cell.dump();
    EXPECT_GT(cell["objects_per_second"].get<double>(), 0.0);
    // A batch of one object would time the consumer thread's start, not the handover.
    EXPECT_GT(cell["processes"][0]["iterations"].get<std::uint64_t>(), 1u) << cell.dump();
    EXPECT_EQ(cell["counts"]["requests"], cell["counts"]["frees"]);
  }
  // On a single-CPU allowance the cells are skipped with the reason, not measured.
  auto single = with_out("one");
  single.insert(single.begin(), {"-c", "1", testing::built::kAbench});
  ProcessLauncher launcher;
  const LaunchOutcome o = launcher.run({"/usr/bin/taskset", single, {}, "", 120}, [](std::string_view) { return 0.0; });
  EXPECT_EQ(o.exit_code, 0) << o.stdout_tail << o.stderr_tail;
  for (const auto& row : read_csv(dir.path() / "one" / "results.csv")) {
    EXPECT_EQ(row.at("status"), "refused");
    EXPECT_NE(row.at("error").find("xthread needs two CPUs"), std::string::npos) << row.at("error");
  }
}

TEST(EndToEnd, ArenaMatrixComparesTheArenaWithEveryAllocator) {
  testing::TempDir dir;
  const auto out = dir.path() / "arena";
  const CliResult r = run_cli({"run", "--matrix", "arena", "--size", "256", "--samples", "3", "--processes", "1",
                               "--min-batch-ms", "0.5", "--out", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  for (const auto& row : rows) {
    EXPECT_EQ(row.at("status"), "ok") << row.at("backend");
    EXPECT_EQ(row.at("count_check"), "ok") << row.at("backend");
    EXPECT_EQ(row.at("requests"), "1");
    EXPECT_EQ(row.at("frees"), row.at("backend") == "arena" ? "0" : "1");
  }
  const CliResult misuse =
      run_cli({"run", "--matrix", "quick", "--backend", "arena", "--out", (dir.path() / "x").string()});
  EXPECT_EQ(misuse.exit_code, 2);
  EXPECT_NE(misuse.err.find("backend 'arena' runs only the workingset workload"), std::string::npos) << misuse.err;
}

struct BadInput {
  std::vector<std::string> args;
  std::string matrix;  // written to bad.json when non-empty and passed as --matrix
  std::string must_mention;
};

TEST(EndToEnd, BadInputExitsTwoWithAClearMessageAndWritesNothing) {
  const std::vector<BadInput> cases{
      {{"--matrix", "nonexistent"}, "", "available matrices:"},
      {{}, "{ \"backends\": [\"system\"],\n  oops }", "bad.json: malformed JSON at line 2, column 3"},
      {{},
       R"({"backends":["system"],"policies":["exact"],"workloads":["allocate"],"sizes":[64],"alignments":[24],"live":[1]})",
       "field 'alignments[0]': alignment 24 is not a power of two"},
      {{"--matrix", "quick", "--backend", "ptmalloc3"}, "", "option --backend: unknown backend 'ptmalloc3'"},
      {{"--matrix", "quick", "--workload", "shrink"}, "", "allowed: allocate, zeroed, grow, append, noop"},
      {{"--matrix", "quick", "--policy", "sloppy"}, "", "allowed: exact, padded"},
      {{"--matrix", "quick", "--size", "0"}, "", "option --size: size 0 is out of range"},
      {{"--matrix", "quick", "--align", "48"}, "", "option --align: alignment 48 is not a power of two"},
  };
  for (const auto& c : cases) {
    testing::TempDir dir;
    std::vector<std::string> args{"run"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    if (!c.matrix.empty()) args.insert(args.end(), {"--matrix", dir.write("bad.json", c.matrix)});
    args.insert(args.end(), {"--out", (dir.path() / "out").string()});
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "out")) << "output written for: " << c.must_mention;
  }
}

TEST(EndToEnd, WorkerServedByTheWrongAllocatorIsReportedAndTheRunGoesOn) {
  // LD_PRELOAD puts jemalloc in front of mimalloc: the mimalloc worker must refuse, its
  // cells fail with the reason, and the jemalloc worker's cells are still measured.
  if (testing::built::kSanitized)
    GTEST_SKIP() << "preloads an allocator into abench itself, which AddressSanitizer refuses; the plain suite runs it";
  testing::TempDir dir;
  const auto out = dir.path() / "run";
  const CliResult r = run_cli({"run",
                               "--matrix",
                               "quick",
                               "--backend",
                               "mimalloc,jemalloc",
                               "--workload",
                               "allocate",
                               "--size",
                               "64",
                               "--align",
                               "256",
                               "--live",
                               "1",
                               "--min-batch-ms",
                               "0.5",
                               "--samples",
                               "2",
                               "--processes",
                               "1",
                               "--out",
                               out.string()},
                              {{"LD_PRELOAD", testing::built::kJemallocLibrary}});
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const auto json = nlohmann::json::parse(read_file(out / "results.json"));
  ASSERT_EQ(json["cells"].size(), 2u);
  for (const auto& cell : json["cells"]) {
    if (cell["backend"] == "mimalloc") {
      EXPECT_EQ(cell["status"], "failed");
      // Both the counting and the timed worker refuse, each with the evidence: the timed
      // one fails the cell, the counting one leaves its counts unavailable.
      ASSERT_EQ(cell["errors"].size(), 1u) << cell.dump();
      for (const std::string& error :
           {cell["errors"][0].get<std::string>(), cell["counts_unavailable"].get<std::string>()}) {
        EXPECT_NE(error.find("refusing to run: malloc is served by"), std::string::npos) << error;
        EXPECT_NE(error.find("libjemalloc"), std::string::npos) << error;
      }
      EXPECT_TRUE(cell["counts"].is_null());
      EXPECT_TRUE(cell["ns_per_op"].is_null());
    } else {
      EXPECT_EQ(cell["status"], "ok") << cell.dump();
    }
  }
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
}

// Flag values that used to be accepted (and then failed every worker, wrapped around, or
// measured a cell twice) are refused with the flag, the value and what is allowed, before
// anything runs or is written.
TEST(EndToEnd, BadFlagValuesAreRefusedBeforeAnythingRuns) {
  struct Case {
    std::vector<std::string> flags;
    std::string must_mention;
  };
  const std::vector<Case> cases{
      {{"--min-batch-ms", "nan"}, "nan is out of range (allowed: a number from 0.001 to 60000 ms)"},
      {{"--min-batch-ms", "1e300"}, "1e300 is out of range"},
      {{"--worker-timeout", "1e300"}, "1e300 is out of range (allowed: a number from 0 to 604800 s)"},
      {{"--seed", "-1"}, "'-1' is not a whole number"},
      {{"--size", "64,,4096"}, "option --size: an empty item in the list"},
      {{"--size", "64,64"}, "option --size: '64' is listed twice"},
      {{"--cpu", "1000"}, "--cpu 1000: not a CPU this process may use (allowed: "},
      {{"--cpu", "9999"}, "--cpu: 9999 is out of range (allowed: a whole number from 0 to 1023"},
      {{"--cpu", "0", "--no-pin"}, "excludes"},
  };
  for (const Case& c : cases) {
    testing::TempDir dir;
    std::vector<std::string> args{"run", "--matrix", "quick", "--out", (dir.path() / "run").string()};
    args.insert(args.end(), c.flags.begin(), c.flags.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << c.flags[0] << " " << r.err;
    EXPECT_NE((r.out + r.err).find(c.must_mention), std::string::npos) << c.must_mention << "\n" << r.out << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir.path() / "run" / "results.json"));
  }
}

TEST(EndToEnd, RefusesToOverwriteEarlierResults) {
  testing::TempDir dir;
  dir.write("results.json", "{}");
  const CliResult r = run_cli({"run", "--matrix", "quick", "--out", dir.path().string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("already holds a results.json"), std::string::npos) << r.err;
  EXPECT_EQ(read_file(dir.path() / "results.json"), "{}");
}

TEST(EndToEnd, ListNamesBackendsWorkloadsAndMatrices) {
  const CliResult r = run_cli({"list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"system", "glibc", "mimalloc", "jemalloc", "exact, padded", "default", "quick",
                           "entry sets: native, portable, rust"})
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  // Every row of the workload, measure and protocol tables, with what it means.
  for (const WorkloadRow& w : kWorkloads)
    EXPECT_NE(r.out.find(fmt::format("{:<14} {}", w.name, w.operation)), std::string::npos) << w.name;
  for (const MeasureRow& m : kMeasures)
    EXPECT_NE(r.out.find(fmt::format("{:<14} {}", m.name, m.what)), std::string::npos) << m.name;
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(ProtocolField::kMatrix) && !f.in(ProtocolField::kOption)) continue;
    // The row's line: its key (or "-" for an option only), option, default and allowed values.
    const std::size_t at = r.out.find(fmt::format(" {} ", f.option));
    ASSERT_NE(at, std::string::npos) << f.option;
    const std::size_t start = r.out.rfind('\n', at) + 1;
    const std::string line = r.out.substr(start, r.out.find('\n', at) - start);
    EXPECT_TRUE(line.starts_with(fmt::format("  {} ", f.in(ProtocolField::kMatrix) ? f.key : "-"))) << line;
    EXPECT_NE(line.find("default " + default_value_text(f)), std::string::npos) << line;
    EXPECT_TRUE(line.ends_with(allowed_values(f))) << line;
  }
}

}  // namespace
}  // namespace abench
