#include "src/machine/cpu_identity.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <utility>

#include <fmt/format.h>

namespace abench {
namespace {

struct KnownPart {
  unsigned implementer, part;
  const char* name;
};

// Implementers and parts from the Arm ARM's MIDR_EL1 assignments and the vendors' manuals
// (the same numbers util-linux's lscpu and the kernel's cputype.h use).
constexpr std::pair<unsigned, const char*> kImplementers[] = {
    {0x41, "Arm"}, {0x42, "Broadcom"}, {0x43, "Cavium"},  {0x46, "Fujitsu"}, {0x48, "HiSilicon"}, {0x4e, "NVIDIA"},
    {0x50, "APM"}, {0x51, "Qualcomm"}, {0x53, "Samsung"}, {0x61, "Apple"},   {0x6d, "Microsoft"}, {0xc0, "Ampere"},
};

constexpr KnownPart kParts[] = {
    {0x41, 0xd03, "Cortex-A53"},      {0x41, 0xd04, "Cortex-A35"},
    {0x41, 0xd05, "Cortex-A55"},      {0x41, 0xd07, "Cortex-A57"},
    {0x41, 0xd08, "Cortex-A72"},      {0x41, 0xd09, "Cortex-A73"},
    {0x41, 0xd0a, "Cortex-A75"},      {0x41, 0xd0b, "Cortex-A76"},
    {0x41, 0xd0c, "Neoverse-N1"},     {0x41, 0xd0d, "Cortex-A77"},
    {0x41, 0xd40, "Neoverse-V1"},     {0x41, 0xd41, "Cortex-A78"},
    {0x41, 0xd44, "Cortex-X1"},       {0x41, 0xd46, "Cortex-A510"},
    {0x41, 0xd47, "Cortex-A710"},     {0x41, 0xd48, "Cortex-X2"},
    {0x41, 0xd49, "Neoverse-N2"},     {0x41, 0xd4a, "Neoverse-E1"},
    {0x41, 0xd4d, "Cortex-A715"},     {0x41, 0xd4e, "Cortex-X3"},
    {0x41, 0xd4f, "Neoverse-V2"},     {0x41, 0xd80, "Cortex-A520"},
    {0x41, 0xd81, "Cortex-A720"},     {0x41, 0xd82, "Cortex-X4"},
    {0x41, 0xd84, "Neoverse-V3"},     {0x41, 0xd85, "Cortex-X925"},
    {0x41, 0xd87, "Cortex-A725"},     {0x41, 0xd8e, "Neoverse-N3"},
    {0x46, 0x001, "A64FX"},           {0x48, 0xd01, "TaiShan v110"},
    {0x4e, 0x004, "Carmel"},          {0x51, 0x800, "Kryo 2xx Gold"},
    {0x51, 0x801, "Kryo 2xx Silver"}, {0x51, 0x802, "Kryo 3xx Gold"},
    {0x51, 0x803, "Kryo 3xx Silver"}, {0x51, 0x804, "Kryo 4xx Gold"},
    {0x51, 0x805, "Kryo 4xx Silver"}, {0x51, 0x001, "Oryon"},
    {0x61, 0x022, "M1 Icestorm"},     {0x61, 0x023, "M1 Firestorm"},
    {0x61, 0x024, "M1 Pro Icestorm"}, {0x61, 0x025, "M1 Pro Firestorm"},
    {0x61, 0x028, "M1 Max Icestorm"}, {0x61, 0x029, "M1 Max Firestorm"},
    {0x61, 0x032, "M2 Blizzard"},     {0x61, 0x033, "M2 Avalanche"},
    {0xc0, 0xac3, "AmpereOne"},       {0xc0, 0xac4, "AmpereOne AC04"},
};

std::string trimmed(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

// Reads "0x41", "0xd0c" or "3"; nullopt when it is not a number.
std::optional<unsigned> number(const std::string& text) {
  try {
    std::size_t used = 0;
    const unsigned long value = std::stoul(text, &used, 0);
    if (used != text.size() || value > 0xffffffffu) return std::nullopt;
    return static_cast<unsigned>(value);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

CpuIdentity parse_cpuinfo(const std::string& text) {
  CpuIdentity id;
  std::istringstream in(text);
  ArmCore core;
  bool have_implementer = false, have_part = false;
  auto end_processor = [&] {
    if (have_implementer && have_part) id.arm_cores.push_back(core);
    core = {};
    have_implementer = have_part = false;
  };
  for (std::string line; std::getline(in, line);) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (trimmed(line).empty()) end_processor();
      continue;
    }
    const std::string key = trimmed(line.substr(0, colon)), value = trimmed(line.substr(colon + 1));
    if (key == "processor" && (have_implementer || have_part)) end_processor();
    if (key == "model name" && id.model.empty()) id.model = value;
    if (key == "flags" || key == "vendor_id") id.family = "x86";
    if (key == "flags" && (" " + value + " ").find(" hypervisor ") != std::string::npos) id.hypervisor_flag = true;
    if (key == "CPU implementer") {
      id.family = "arm";
      if (const auto n = number(value)) {
        core.implementer = *n;
        have_implementer = true;
      }
    }
    if (key == "CPU part")
      if (const auto n = number(value)) {
        core.part = *n;
        have_part = true;
      }
    if (key == "CPU variant")
      if (const auto n = number(value)) core.variant = *n;
    if (key == "CPU revision")
      if (const auto n = number(value)) core.revision = *n;
  }
  end_processor();
  // Some Arm kernels also write a "model name" ("ARMv8 Processor rev 1 (v8l)"): the cores say more.
  if (id.family == "arm" && !id.arm_cores.empty()) id.model = arm_model(id.arm_cores);
  return id;
}

std::optional<ArmCore> core_of_midr(const std::string& text) {
  const std::string t = trimmed(text);
  if (t.rfind("0x", 0) != 0) return std::nullopt;
  try {
    std::size_t used = 0;
    const unsigned long long wide = std::stoull(t, &used, 16);
    if (used != t.size()) return std::nullopt;
    const auto midr = static_cast<std::uint32_t>(wide);  // the upper 32 bits are reserved
    return ArmCore{midr >> 24, (midr >> 4) & 0xfff, (midr >> 20) & 0xf, midr & 0xf};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string arm_core_name(const ArmCore& core) {
  const char* vendor = nullptr;
  for (const auto& [id, name] : kImplementers)
    if (id == core.implementer) vendor = name;
  for (const KnownPart& p : kParts)
    if (p.implementer == core.implementer && p.part == core.part) return fmt::format("{} {}", vendor, p.name);
  return vendor ? fmt::format("{} part {:#05x}", vendor, core.part)
                : fmt::format("implementer {:#04x} part {:#05x}", core.implementer, core.part);
}

std::string arm_model(const std::vector<ArmCore>& cores) {
  std::vector<std::pair<std::string, int>> kinds;
  for (const ArmCore& c : cores) {
    const std::string name = arm_core_name(c);
    auto it = std::find_if(kinds.begin(), kinds.end(), [&](const auto& k) { return k.first == name; });
    if (it == kinds.end())
      kinds.emplace_back(name, 1);
    else
      ++it->second;
  }
  if (kinds.size() == 1) return kinds.front().first;
  std::string out;
  for (const auto& [name, count] : kinds) out += fmt::format("{}{} x{}", out.empty() ? "" : " + ", name, count);
  return out;
}

}  // namespace abench
