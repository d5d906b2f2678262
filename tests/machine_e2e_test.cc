// End-to-end: what a run and a compare record of the machine, from the real files the
// kernel (or the emulator) shows abench. Under qemu-user the test puts an Arm machine's
// /proc/cpuinfo in place, as real hardware has it: qemu opens an absolute path under
// QEMU_LD_PREFIX first, so a root made of the sysroot's directories plus proc/cpuinfo is
// what abench and its workers read.
#include <gtest/gtest.h>
#include <sys/utsname.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/cli_helpers.h"
#include "tests/emulation.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::read_file;
using testing::run_cli;

std::string this_machine() {
  utsname uts{};
  uname(&uts);
  return uts.machine;
}

std::vector<std::string> tiny_run(const std::filesystem::path& out) {
  return {"run",       "--matrix",    "quick",   "--backend",   "system,mimalloc", "--workload", "allocate",
          "--size",    "64",          "--align", "256",         "--live",          "1",          "--samples",
          "2",         "--processes", "1",       "--no-counts", "--min-batch-ms",  "0.2",        "--out",
          out.string()};
}

std::vector<std::string> tiny_compare(const std::filesystem::path& out) {
  return {"compare",
          "--baseline",
          "backend=system",
          "--candidate",
          "backend=mimalloc",
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
          "--samples",
          "2",
          "--processes",
          "2",
          "--no-counts",
          "--min-batch-ms",
          "0.2",
          "--out",
          out.string()};
}

// The root qemu resolves absolute paths in: the sysroot's directories, links and files
// (hard-linked, or copied where they lie on another file system; device nodes left out), with
// a proc/ holding only `cpuinfo`. Not symbolic links to the sysroot: a worker checks which
// file serves malloc by its canonical path, which must stay /usr/lib/...
std::filesystem::path root_with_cpuinfo(const std::filesystem::path& sysroot, const std::filesystem::path& dir,
                                        const std::filesystem::path& cpuinfo) {
  namespace fs = std::filesystem;
  const auto root = dir / "root";
  fs::create_directories(root / "proc");
  for (auto it = fs::recursive_directory_iterator(sysroot); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path to = root / it->path().lexically_relative(sysroot);
    if (to.parent_path() == root / "proc") continue;
    if (it->is_symlink()) {
      fs::copy_symlink(it->path(), to);
    } else if (it->is_directory()) {
      fs::create_directories(to);
    } else if (it->is_regular_file()) {
      std::error_code linked;
      fs::create_hard_link(it->path(), to, linked);
      if (linked) fs::copy_file(it->path(), to);
    }
  }
  fs::copy_file(cpuinfo, root / "proc" / "cpuinfo");
  return root;
}

// A run records the architecture it ran as, and a compare records it for both sides: on x86-64
// natively, on aarch64 under qemu (with the emulator named) and on Arm hardware.
TEST(MachineEndToEnd, ARunAndACompareRecordTheArchitectureTheyRanAs) {
  testing::TempDir dir;
  const CliResult run = run_cli(tiny_run(dir.path() / "run"));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const CliResult compare = run_cli(tiny_compare(dir.path() / "cmp"));
  ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  for (const char* out : {"run", "cmp"}) {
    const auto json = nlohmann::json::parse(read_file(dir.path() / out / "results.json"));
    const auto& conditions = json["conditions"];
    EXPECT_EQ(conditions["architecture"], this_machine()) << out;
    EXPECT_EQ(conditions["emulator"].is_string(), testing::emulator_here().has_value()) << conditions.dump();
    EXPECT_TRUE(conditions["machine_fingerprint"].is_string());
    for (const auto& cell : json["cells"]) EXPECT_EQ(cell["status"], "ok") << cell.dump();
  }
  if (testing::emulator_here()) {
    EXPECT_NE(run.err.find("emulated: "), std::string::npos) << "every run under emulation warns: " << run.err;
  }
}

// Arm's /proc/cpuinfo has no "model name": the cores are named from their MIDR fields, and the
// implementer and part are recorded as the kernel gives them. Graviton4 (Neoverse-V2) here.
TEST(MachineEndToEnd, AnArmCpuinfoNamesTheCoresInARunAndACompare) {
  const char* sysroot = std::getenv("QEMU_LD_PREFIX");
  if (!testing::emulator_here() || this_machine() != "aarch64" || sysroot == nullptr)
    GTEST_SKIP() << "needs aarch64 under qemu-user with QEMU_LD_PREFIX (scripts/test --arch aarch64): a native "
                    "kernel's /proc/cpuinfo cannot be replaced (the canned files are parsed in CannedCpuinfo.*)";
  testing::TempDir dir;
  const auto root = root_with_cpuinfo(
      sysroot, dir.path(),
      std::filesystem::path(testing::built::kSourceDir) / "tests/data/cpuinfo/graviton4-neoverse-v2.txt");
  const std::vector<std::pair<std::string, std::string>> env{{"QEMU_LD_PREFIX", root.string()}};
  const CliResult run = testing::run_cli(tiny_run(dir.path() / "run"), env);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const CliResult compare = testing::run_cli(tiny_compare(dir.path() / "cmp"), env);
  ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  std::optional<std::string> fingerprint;
  for (const char* out : {"run", "cmp"}) {
    const auto json = nlohmann::json::parse(read_file(dir.path() / out / "results.json"));
    const auto& conditions = json["conditions"];
    EXPECT_EQ(conditions["architecture"], "aarch64");
    EXPECT_EQ(conditions["cpu_model"], "Arm Neoverse-V2") << conditions.dump();
    EXPECT_EQ(conditions["cpu_implementer"], "0x41");
    EXPECT_EQ(conditions["cpu_part"], "0xd4f");
    // The cpuinfo is an Arm machine's now, so only binfmt_misc tells that qemu runs abench.
    ASSERT_TRUE(conditions["emulator"].is_string()) << conditions.dump();
    EXPECT_NE(conditions["emulator"].get<std::string>().find("binfmt_misc"), std::string::npos);
    if (fingerprint) {
      EXPECT_EQ(conditions["machine_fingerprint"], *fingerprint) << "one machine, one fingerprint";
    }
    fingerprint = conditions["machine_fingerprint"].get<std::string>();
    for (const auto& cell : json["cells"]) EXPECT_EQ(cell["status"], "ok") << cell.dump();
  }
  // The machine with the host's cpuinfo is another machine to the gate.
  const CliResult plain = run_cli(tiny_run(dir.path() / "plain"));
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  const auto plain_json = nlohmann::json::parse(read_file(dir.path() / "plain" / "results.json"));
  EXPECT_NE(plain_json["conditions"]["machine_fingerprint"], *fingerprint);
  EXPECT_EQ(plain_json["conditions"]["cpu_implementer"], nullptr) << "qemu shows the host's x86 cpuinfo";
}

}  // namespace
}  // namespace abench
