#include "src/run/hot_path.h"

#include <unistd.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <set>

#include <fmt/format.h>

#include "src/explain/callgrind_costs.h"
#include "src/run/disassembly.h"
#include "src/util/atomic_file.h"
#include "src/util/text.h"

namespace abench {
namespace {

int changed_lines(const std::string& diff) {
  int n = 0;
  std::size_t at = 0;
  while (at < diff.size()) {
    const std::size_t end = diff.find('\n', at);
    const std::string_view line(diff.data() + at, (end == std::string::npos ? diff.size() : end) - at);
    if ((line.starts_with("+") && !line.starts_with("+++")) || (line.starts_with("-") && !line.starts_with("---"))) ++n;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return n;
}

// What each variant's cells cost per instruction under callgrind: the dumps of its
// instrumented processes (callgrind.PID.N, one a cell), and their instructions in all.
struct VariantCosts {
  InstructionCosts costs;
  std::uint64_t total = 0;
};

std::vector<VariantCosts> costs_by_variant(const RunResults& results, const std::filesystem::path& callgrind_dir) {
  std::vector<VariantCosts> out(results.plan.variants.size());
  std::error_code ec;
  for (const WorkerRecord& w : results.workers) {
    if (!w.hello || w.job.variant >= out.size()) continue;
    const std::string prefix = fmt::format("callgrind.{}.", w.hello->pid);
    for (const auto& entry : std::filesystem::directory_iterator(callgrind_dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!name.starts_with(prefix) || !entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      out[w.job.variant].total += add_instruction_costs(text.str(), out[w.job.variant].costs);
    }
  }
  return out;
}

std::string canonical_text(const std::string& path) {
  std::error_code ec;
  const auto resolved = std::filesystem::canonical(path, ec);
  return ec ? path : resolved.string();
}

// Each instruction of the listing with its share of the variant's counted instructions in
// front ("  2.31% "; blank where it never ran).
std::string annotated(const std::string& listing, const std::string& object, const VariantCosts& v) {
  const std::map<std::uint64_t, std::uint64_t>* costs = nullptr;
  for (const auto& [file, by_address] : v.costs)
    if (canonical_text(file) == canonical_text(object)) costs = &by_address;
  if (costs == nullptr || v.total == 0) return listing;
  static const std::regex address(R"(^\s*([0-9a-f]+):)");
  std::istringstream in(listing);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) {
      out += "\n";
      continue;
    }
    std::smatch m;
    std::string share(8, ' ');
    if (std::regex_search(line, m, address))
      if (const auto hit = costs->find(std::stoull(m[1].str(), nullptr, 16)); hit != costs->end() && hit->second)
        share = fmt::format("{:6.2f}% ", 100.0 * static_cast<double>(hit->second) / static_cast<double>(v.total));
    out += share + line + "\n";
  }
  return out;
}

}  // namespace

HotPathIndex write_hot_paths(const RunResults& results, const std::filesystem::path& explain_dir) {
  const std::filesystem::path dir = explain_dir / kHotPathDirectory;
  std::filesystem::create_directories(dir);
  HotPathIndex index;
  std::vector<std::map<std::string, std::string>> normalised(results.plan.variants.size());
  const std::vector<VariantCosts> costs = costs_by_variant(results, explain_dir / "callgrind");
  for (std::size_t v = 0; v < results.plan.variants.size(); ++v) {
    const WorkerHello* hello = hello_of_variant(results, v);
    if (hello == nullptr) continue;
    std::set<std::string> seen;
    for (const EntryFunction& f : hello->entry_functions) {
      if (!is_function_name(f.name) || !seen.insert(f.name).second) continue;
      FunctionListing listing{v, results.plan.variants[v].label(), f.name, f.object, f.file_address, f.size, false, ""};
      const ToolOutput listed = disassemble(f);
      if (listed.ok) {
        write_file_atomically(dir / listing_file_name(v, f.name), annotated(listed.out, f.object, costs[v]));
        normalised[v][f.name] = normalised_listing(listed.out);
        listing.listed = true;
      } else {
        listing.problem = listed.problem;
      }
      index.listings.push_back(std::move(listing));
    }
  }
  for (std::size_t pair = 0; !results.plan.partner.empty() && 2 * pair + 1 < normalised.size(); ++pair)
    for (const auto& [function, before] : normalised[2 * pair]) {
      const auto after = normalised[2 * pair + 1].find(function);
      if (after == normalised[2 * pair + 1].end()) continue;
      // diff reads files: the two normalised listings, beside the diff they make.
      const auto a = dir / fmt::format("pair{}-{}.before", pair, function);
      const auto b = dir / fmt::format("pair{}-{}.after", pair, function);
      write_file_atomically(a, before);
      write_file_atomically(b, after->second);
      const ToolOutput diff = run_tool("/usr/bin/diff",
                                       {"-u", "--label", results.plan.variants[2 * pair].label(), "--label",
                                        results.plan.variants[2 * pair + 1].label(), a.string(), b.string()},
                                       1);
      std::filesystem::remove(a);
      std::filesystem::remove(b);
      if (!diff.ok) continue;
      write_file_atomically(dir / diff_file_name(pair, function), diff.out);
      index.diffs.push_back({pair, function, diff.out.empty(), changed_lines(diff.out)});
    }
  write_file_atomically(dir / "index.json", hot_path_index_json(index).dump(2) + "\n");
  return index;
}

}  // namespace abench
