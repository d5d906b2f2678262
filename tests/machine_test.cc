// What abench records of the CPU and of virtualization, from canned /proc/cpuinfo files in
// the kernel's format for machines emulation never shows (tests/data/cpuinfo/), and from
// canned /sys trees.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "src/machine/cpu_identity.h"
#include "src/machine/virtualization.h"

namespace abench {
namespace {

std::string canned(const std::string& name) {
  std::ifstream in(std::string(CPUINFO_DIR) + "/" + name);
  EXPECT_TRUE(in) << name;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

FirstLineReader files(std::map<std::string, std::string> tree) {
  return [tree](const std::string& path) -> std::optional<std::string> {
    const auto it = tree.find(path);
    return it == tree.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

struct CannedCpu {
  const char* file;
  const char* family;
  const char* model;
  unsigned implementer, part;
  std::size_t cores;
};

class CannedCpuinfo : public ::testing::TestWithParam<CannedCpu> {};

TEST_P(CannedCpuinfo, NamesTheCpu) {
  const CannedCpu& c = GetParam();
  const CpuIdentity id = parse_cpuinfo(canned(c.file));
  EXPECT_EQ(id.family, c.family);
  EXPECT_EQ(id.model, c.model);
  ASSERT_EQ(id.arm_cores.size(), c.cores);
  if (c.cores) {
    EXPECT_EQ(id.arm_cores[0].implementer, c.implementer);
    EXPECT_EQ(id.arm_cores[0].part, c.part);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Machines, CannedCpuinfo,
    ::testing::Values(
        CannedCpu{"graviton2-neoverse-n1.txt", "arm", "Arm Neoverse-N1", 0x41, 0xd0c, 4},
        CannedCpu{"graviton4-neoverse-v2.txt", "arm", "Arm Neoverse-V2", 0x41, 0xd4f, 4},
        CannedCpu{"ampereone.txt", "arm", "Ampere AmpereOne", 0xc0, 0xac3, 4},
        CannedCpu{"rk3588-cortex-a55-a76.txt", "arm", "Arm Cortex-A55 x4 + Arm Cortex-A76 x4", 0x41, 0xd05, 8},
        CannedCpu{"apple-m1-asahi.txt", "arm", "Apple M1 Icestorm x4 + Apple M1 Firestorm x4", 0x61, 0x022, 8},
        CannedCpu{"raspberry-pi4-armv7-kernel.txt", "arm", "Arm Cortex-A72", 0x41, 0xd08, 1},
        CannedCpu{"x86-epyc-guest.txt", "x86", "AMD EPYC 7B13", 0, 0, 0}),
    [](const auto& info) {
      std::string name = info.param.file;
      for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return name;
    });

TEST(CpuIdentity, UnknownPartsAndGarbageAreNamedByNumberNeverGuessed) {
  EXPECT_EQ(arm_core_name({0x41, 0xfff, 0, 0}), "Arm part 0xfff");
  EXPECT_EQ(arm_core_name({0x99, 0x123, 0, 0}), "implementer 0x99 part 0x123");
  const CpuIdentity garbage = parse_cpuinfo("CPU implementer\t: banana\nCPU part\t: 0xd0c\n\n");
  EXPECT_EQ(garbage.family, "arm");
  EXPECT_TRUE(garbage.arm_cores.empty());
  EXPECT_EQ(garbage.model, "");
  const CpuIdentity empty = parse_cpuinfo("");
  EXPECT_EQ(empty.family, "");
  EXPECT_EQ(empty.model, "");
}

TEST(CpuIdentity, MidrFromSysfs) {
  const auto core = core_of_midr("0x00000000410fd0c1\n");
  ASSERT_TRUE(core);
  EXPECT_EQ(*core, (ArmCore{0x41, 0xd0c, 0, 1}));
  EXPECT_EQ(arm_core_name(*core), "Arm Neoverse-N1");
  EXPECT_FALSE(core_of_midr("410fd0c1"));
  EXPECT_FALSE(core_of_midr("0xzz"));
  EXPECT_FALSE(core_of_midr(""));
}

TEST(Virtualization, HypervisorsSeenWithoutCpuid) {
  const CpuIdentity arm = parse_cpuinfo(canned("graviton2-neoverse-n1.txt"));
  EXPECT_EQ(detect_hypervisor(files({}), arm), std::nullopt);
  EXPECT_EQ(detect_hypervisor(files({{"/sys/class/dmi/id/sys_vendor", "Amazon EC2"},
                                     {"/sys/class/dmi/id/product_name", "c6g.large"}}),
                              arm),
            "Amazon EC2");
  EXPECT_EQ(detect_hypervisor(files({{"/sys/class/dmi/id/sys_vendor", "Amazon EC2"},
                                     {"/sys/class/dmi/id/product_name", "c6g.metal"}}),
                              arm),
            std::nullopt);
  EXPECT_EQ(detect_hypervisor(files({{"/sys/class/dmi/id/sys_vendor", "QEMU"}}), arm), "QEMU");
  EXPECT_EQ(detect_hypervisor(
                files({{"/proc/device-tree/hypervisor/compatible", std::string("xen,xen\0xen,xen-4.17", 20)}}), arm),
            "xen,xen");
  EXPECT_EQ(detect_hypervisor(files({{"/sys/class/dmi/id/sys_vendor", "Microsoft Corporation"},
                                     {"/sys/class/dmi/id/product_name", "Virtual Machine"}}),
                              arm),
            "Hyper-V");
  const CpuIdentity x86 = parse_cpuinfo(canned("x86-epyc-guest.txt"));
  EXPECT_TRUE(x86.hypervisor_flag);
  EXPECT_EQ(detect_hypervisor(files({}), x86), "detected (cpuid hypervisor flag)");
}

TEST(Virtualization, EmulationIsNamed) {
  const CpuIdentity x86 = parse_cpuinfo(canned("x86-epyc-guest.txt"));
  const CpuIdentity arm = parse_cpuinfo(canned("graviton2-neoverse-n1.txt"));
  const auto shown_host = detect_emulator(files({}), x86, "aarch64");
  ASSERT_TRUE(shown_host);
  EXPECT_NE(shown_host->find("describes x86 cores but this process runs as aarch64"), std::string::npos);
  EXPECT_EQ(detect_emulator(files({}), arm, "aarch64"), std::nullopt);
  EXPECT_EQ(detect_emulator(files({}), x86, "x86_64"), std::nullopt);
  const auto binfmt = detect_emulator(files({{"/proc/sys/fs/binfmt_misc/qemu-aarch64", "enabled"}}), arm, "aarch64");
  ASSERT_TRUE(binfmt);
  EXPECT_NE(binfmt->find("qemu-aarch64 enabled"), std::string::npos);
  EXPECT_EQ(architecture_family("x86_64"), "x86");
  EXPECT_EQ(architecture_family("i686"), "x86");
  EXPECT_EQ(architecture_family("aarch64"), "arm");
  EXPECT_EQ(architecture_family("riscv64"), "riscv64");
}

}  // namespace
}  // namespace abench
