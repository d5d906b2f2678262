#include "src/machine/virtualization.h"

#include <sys/utsname.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace abench {
namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

std::optional<std::string> read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  return line;
}

std::optional<std::string> emulator_of_this_process() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::stringstream text;
  text << cpuinfo.rdbuf();
  utsname uts{};
  uname(&uts);
  return detect_emulator(read_first_line, parse_cpuinfo(text.str()), uts.machine);
}

std::string architecture_family(const std::string& machine) {
  if (machine == "x86_64" || (machine.size() == 4 && machine[0] == 'i' && machine.substr(2) == "86")) return "x86";
  if (machine == "aarch64" || machine == "arm64" || starts_with(machine, "arm")) return "arm";
  return machine;
}

std::optional<std::string> detect_hypervisor(const FirstLineReader& read, const CpuIdentity& cpu) {
  if (auto type = read("/sys/hypervisor/type"); type && !type->empty()) return *type;  // Xen
  // Arm guests learn of their hypervisor from the device tree.
  for (const char* path :
       {"/proc/device-tree/hypervisor/compatible", "/sys/firmware/devicetree/base/hypervisor/compatible"})
    if (auto compatible = read(path); compatible && !compatible->empty())
      return compatible->substr(0, compatible->find('\0'));
  const std::string vendor = read("/sys/class/dmi/id/sys_vendor").value_or("");
  const std::string product = read("/sys/class/dmi/id/product_name").value_or("");
  // The DMI names virtual machines give themselves (as systemd-detect-virt reads them).
  for (const char* name : {"QEMU", "KVM", "VMware", "VirtualBox", "innotek", "Xen", "Parallels", "BHYVE", "OpenStack",
                           "Google", "Alibaba Cloud"})
    if (starts_with(vendor, name) || starts_with(product, name)) return vendor.empty() ? product : vendor;
  if (vendor == "Microsoft Corporation" && product == "Virtual Machine") return "Hyper-V";
  // EC2's Nitro instances say so in DMI; its bare-metal ones are named *.metal.
  if (vendor == "Amazon EC2" && product.find(".metal") == std::string::npos) return vendor;
  if (cpu.hypervisor_flag) return vendor.empty() ? "detected (cpuid hypervisor flag)" : vendor;
  return std::nullopt;
}

std::optional<std::string> detect_emulator(const FirstLineReader& read, const CpuIdentity& cpu,
                                           const std::string& process_architecture) {
  const std::string family = architecture_family(process_architecture);
  if (!cpu.family.empty() && cpu.family != family)
    return fmt::format("/proc/cpuinfo describes {} cores but this process runs as {}: an emulator (qemu-user) runs it",
                       cpu.family, process_architecture);
  if (process_architecture == "aarch64")
    if (auto entry = read("/proc/sys/fs/binfmt_misc/qemu-aarch64"); entry && *entry == "enabled")
      return "binfmt_misc sends aarch64 programs to qemu (qemu-aarch64 enabled): an emulator runs this process";
  return std::nullopt;
}

}  // namespace abench
