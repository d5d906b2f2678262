#include "src/run/disassembly.h"

#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "src/explain/hot_path_files.h"
#include "src/run/process_launcher.h"
#include "src/util/text.h"

namespace abench {
namespace {

// The objdump that reads the object's architecture (its ELF header's e_machine).
std::string objdump_for(const std::string& object) {
  std::ifstream in(object, std::ios::binary);
  unsigned char header[20] = {};
  if (!in.read(reinterpret_cast<char*>(header), sizeof header) || header[0] != 0x7f || header[1] != 'E') return "";
  const int machine = header[18] | header[19] << 8;
  constexpr int kX86_64 = 62, kAarch64 = 183;
#if defined(__x86_64__)
  const int here = kX86_64;
#elif defined(__aarch64__)
  const int here = kAarch64;
#else
  const int here = -1;
#endif
  const std::string tool = machine == here       ? "/usr/bin/objdump"
                           : machine == kAarch64 ? "/usr/bin/aarch64-linux-gnu-objdump"
                           : machine == kX86_64  ? "/usr/bin/x86_64-linux-gnu-objdump"
                                                 : "";
  return access(tool.c_str(), X_OK) == 0 ? tool : "";
}

}  // namespace

ToolOutput run_tool(const std::string& tool, std::vector<std::string> arguments, int ok_exit_codes) {
  ProcessLauncher launcher;
  LaunchRequest request{tool, std::move(arguments), {}, "", 60};
  request.output_tail_bytes = std::size_t{16} << 20;
  const LaunchOutcome o = launcher.run(request, [](std::string_view) { return 0.0; });
  ToolOutput r;
  r.ok = o.started && o.signal == 0 && !o.timed_out && o.exit_code >= 0 && o.exit_code <= ok_exit_codes;
  r.out = o.stdout_tail;
  if (!r.ok) r.problem = fmt::format("{} failed ({}): {}", tool, describe(o), printable_tail(o.stderr_tail, 300));
  return r;
}

namespace {

// An object's functions by start address: name and size (nm -S, its static and dynamic
// tables: a stripped library has only the second).
using SymbolTable = std::map<std::uint64_t, std::pair<std::string, std::uint64_t>>;

SymbolTable symbols_of(const std::string& nm, const std::string& object) {
  SymbolTable table;
  for (const char* which : {"--defined-only", "--dynamic"}) {
    const ToolOutput listed = run_tool(nm, {"-S", "--defined-only", which, object}, 1);
    std::istringstream lines(listed.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::string address, size, type, name;
      if (!(words >> address >> size >> type >> name) || (type != "t" && type != "T" && type != "W" && type != "i"))
        continue;
      name = name.substr(0, name.find('@'));  // malloc@@GLIBC_2.2.5
      table.emplace(std::stoull(address, nullptr, 16), std::pair{name, std::stoull(size, nullptr, 16)});
    }
  }
  return table;
}

// objdump's listing of [start, start + size), from its label on.
ToolOutput listing_of(const std::string& objdump, const std::string& object, std::uint64_t start, std::uint64_t size) {
  ToolOutput r = run_tool(objdump, {"-d", "--no-show-raw-insn", fmt::format("--start-address={:#x}", start),
                                    fmt::format("--stop-address={:#x}", start + size), object});
  if (!r.ok) return r;
  const std::size_t label = r.out.find(">:\n");
  const std::size_t from = label == std::string::npos ? std::string::npos : r.out.rfind('\n', label);
  if (from != std::string::npos) r.out = r.out.substr(from + 1);
  return r;
}

// The listing with objdump's name for the entry function replaced by the one asked for:
// objdump names an address after one of its aliases (mi_malloc's after __libc_malloc,
// mi_free's after _ZdaPv), which reads as if the wrong function had been shown.
std::string named_as_asked(std::string listing, const std::string& name) {
  const std::size_t open = listing.find('<'), close = listing.find(">:\n");
  if (open == std::string::npos || close == std::string::npos || close < open) return listing;
  const std::string alias = listing.substr(open + 1, close - open - 1);
  if (alias == name) return listing;
  for (const std::string suffix : {">", "+"}) {
    const std::string from = "<" + alias + suffix, to = "<" + name + suffix;
    for (std::size_t at = listing.find(from); at != std::string::npos; at = listing.find(from, at + to.size()))
      listing.replace(at, from.size(), to);
  }
  return listing;
}

// The function and what it calls or jumps to at a function's start in the same object, two
// calls deep, at most kMaxFunctions in all: the hot path, not only its first frame (malloc is
// often a jump to the allocator's own function).
constexpr int kCallDepth = 2;
constexpr std::size_t kMaxFunctions = 12;

}  // namespace

ToolOutput disassemble(const EntryFunction& f) {
  const std::string objdump = objdump_for(f.object);
  if (objdump.empty())
    return {false, "",
            "no objdump for " + f.object +
                "'s architecture (apt-get install binutils, or "
                "binutils-aarch64-linux-gnu for an aarch64 object)"};
  if (f.size == 0) return {false, "", "the symbol has no size in " + f.object};
  const std::string nm = objdump.substr(0, objdump.size() - std::string_view("objdump").size()) + "nm";
  const SymbolTable symbols = symbols_of(nm, f.object);
  static const std::regex direct(R"((?:call|callq|jmp|jmpq|bl|b)\s+([0-9a-f]+) <[^>+]*>)");
  std::set<std::uint64_t> seen{f.file_address};
  std::vector<std::pair<std::uint64_t, std::uint64_t>> frontier{{f.file_address, f.size}};
  ToolOutput all{true, "", ""};
  for (int depth = 0; depth <= kCallDepth && !frontier.empty(); ++depth) {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> next;
    for (const auto& [start, size] : frontier) {
      ToolOutput one = listing_of(objdump, f.object, start, size);
      if (!one.ok) return one;
      all.out += (all.out.empty() ? "" : "\n") + one.out;
      for (std::sregex_iterator m(one.out.begin(), one.out.end(), direct), end; m != end; ++m) {
        const std::uint64_t target = std::stoull((*m)[1].str(), nullptr, 16);
        const auto callee = symbols.find(target);
        if (callee == symbols.end() || callee->second.second == 0 || seen.size() >= kMaxFunctions ||
            !seen.insert(target).second)
          continue;
        next.emplace_back(target, callee->second.second);
      }
    }
    frontier = std::move(next);
  }
  if (normalised_listing(all.out).empty()) return {false, "", "objdump showed no instruction of it in " + f.object};
  all.out = named_as_asked(std::move(all.out), f.name);
  return all;
}

}  // namespace abench
