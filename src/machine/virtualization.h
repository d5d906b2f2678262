// Whether the numbers come from a virtual machine (a hypervisor shares the host) or from an
// emulator (qemu-user runs another architecture's code: no timing is the CPU's), from what
// every architecture exposes, not only x86's cpuid flag.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "src/machine/cpu_identity.h"

namespace abench {

// A file's first line, or nullopt when it cannot be read; injected so that tests feed
// canned /sys and /proc trees.
using FirstLineReader = std::function<std::optional<std::string>(const std::string& path)>;

// "xen", "KVM", "Amazon EC2", "detected (cpuid hypervisor flag)", ...; nullopt when none is seen.
std::optional<std::string> detect_hypervisor(const FirstLineReader& read, const CpuIdentity& cpu);

// Why this process runs emulated, or nullopt: /proc/cpuinfo describing another architecture
// family than the process's (qemu-user shows the host's), or binfmt_misc sending this
// architecture's programs to qemu (no native host registers its own architecture there).
std::optional<std::string> detect_emulator(const FirstLineReader& read, const CpuIdentity& cpu,
                                           const std::string& process_architecture);

// "x86" for x86_64 and i?86, "arm" for aarch64 and arm*, else the name itself.
std::string architecture_family(const std::string& machine);

// The FirstLineReader of the real file system.
std::optional<std::string> read_first_line(const std::string& path);

// detect_emulator for this process, from /proc/cpuinfo, uname and binfmt_misc (tests skip
// what emulation makes meaningless with it).
std::optional<std::string> emulator_of_this_process();

}  // namespace abench
