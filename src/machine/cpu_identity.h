// Which CPU this is, from what each architecture exposes: x86's "model name" in
// /proc/cpuinfo; on Arm the implementer and part of each core (cpuinfo's "CPU implementer"
// and "CPU part", or MIDR_EL1 from sysfs), named from a table of the common parts. Pure
// functions over the text, so canned cpuinfo files of real machines test them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace abench {

struct ArmCore {
  unsigned implementer = 0, part = 0, variant = 0, revision = 0;
  bool operator==(const ArmCore&) const = default;
};

struct CpuIdentity {
  // The architecture family the text describes: "x86", "arm", or "" (unknown). It can
  // differ from the process's (qemu-user shows the host's cpuinfo to an emulated process).
  std::string family;
  std::string model;  // "AMD EPYC 7B13", "Arm Neoverse-N1", "Arm Cortex-A55 x4 + Cortex-A76 x4"; "" unknown
  std::vector<ArmCore> arm_cores;  // one per processor, Arm only
  bool hypervisor_flag = false;    // x86: cpuid's hypervisor bit, as the flags line shows it
};

CpuIdentity parse_cpuinfo(const std::string& text);

// MIDR_EL1 as sysfs writes it (/sys/devices/system/cpu/cpuN/regs/identification/midr_el1,
// "0x00000000410fd0c1"); nullopt for anything else.
std::optional<ArmCore> core_of_midr(const std::string& text);

// "Arm Neoverse-N1", "Apple M1 Firestorm", or "implementer 0x41 part 0xd0c" when the table
// does not know it.
std::string arm_core_name(const ArmCore& core);

// Distinct cores in order of first appearance with their counts: "Arm Neoverse-N1" for one
// kind (the count is logical_cpus), "Arm Cortex-A55 x4 + Arm Cortex-A76 x4" for several.
std::string arm_model(const std::vector<ArmCore>& cores);

}  // namespace abench
