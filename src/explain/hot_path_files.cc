#include "src/explain/hot_path_files.h"

#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "src/explain/work_figures.h"
#include "src/util/json_field.h"
#include "src/util/json_file.h"

namespace abench {

bool is_function_name(std::string_view name) {
  if (name.empty() || name.size() > 100) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
  return name.front() != '.';
}

std::string listing_file_name(std::size_t variant, std::string_view function) {
  return fmt::format("{}-{}.s", variant, function);
}

std::string diff_file_name(std::size_t pair, std::string_view function) {
  return fmt::format("pair{}-{}.diff", pair, function);
}

std::string normalised_listing(std::string_view objdump_text) {
  static const std::regex share(R"(^\s*[0-9.]+% )");  // the annotation in front (src/run/hot_path.cc)
  static const std::regex address_column(R"(^\s*[0-9a-f]+:\s*)");
  static const std::regex target(R"(\b[0-9a-f]+ (<[^>]*>))");
  static const std::regex rip(R"(-?0x[0-9a-f]+\(%rip\))");
  std::istringstream in{std::string(objdump_text)};
  std::string out;
  for (std::string line; std::getline(in, line);) {
    line = std::regex_replace(line, share, "");
    if (!std::regex_search(line, address_column)) continue;  // headers, labels, blank lines
    line = std::regex_replace(line, address_column, "");
    line = std::regex_replace(line, target, "$1");
    line = std::regex_replace(line, rip, "(%rip)");
    out += line + "\n";
  }
  return out;
}

nlohmann::json hot_path_index_json(const HotPathIndex& index) {
  nlohmann::json listings = nlohmann::json::array(), diffs = nlohmann::json::array();
  for (const FunctionListing& l : index.listings)
    listings.push_back({{"variant", l.variant},
                        {"label", l.label},
                        {"function", l.function},
                        {"object", l.object},
                        {"file_address", l.file_address},
                        {"size", l.size},
                        {"listed", l.listed},
                        {"problem", l.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(l.problem)}});
  for (const FunctionDiff& d : index.diffs)
    diffs.push_back(
        {{"pair", d.pair}, {"function", d.function}, {"identical", d.identical}, {"changed_lines", d.changed_lines}});
  return {{"schema", "abench.hot_path"}, {"schema_version", 1}, {"listings", listings}, {"diffs", diffs}};
}

HotPathIndex read_hot_path_index(const std::filesystem::path& results_dir) {
  const std::filesystem::path relative = std::filesystem::path(kExplainDirectory) / kHotPathDirectory / "index.json";
  const std::string path = (results_dir / relative).string();
  const nlohmann::json j = read_json_file_below(results_dir, relative, "the hot path index");
  const JsonField root(path, j, "", "malformed hot path index");
  if (root.at("schema").text() != "abench.hot_path") root.at("schema").fail("must be \"abench.hot_path\"");
  root.at("schema_version").whole<int>(1, 1);
  constexpr auto kMax = std::numeric_limits<std::uint64_t>::max();
  const auto function_at = [](const JsonField& f) {
    std::string name = f.text();
    if (!is_function_name(name)) f.fail("must be a symbol (letters, digits, _ and ., at most 100)");
    return name;
  };
  HotPathIndex index;
  const JsonField listings = root.at("listings");
  for (std::size_t i = 0; i < listings.size_of_list(); ++i) {
    const JsonField l = listings.at(i);
    FunctionListing f;
    f.variant = l.at("variant").whole<std::size_t>(0, 10000);
    f.label = l.at("label").text();
    f.function = function_at(l.at("function"));
    f.object = l.at("object").text();
    f.file_address = l.at("file_address").whole<std::uint64_t>(0, kMax);
    f.size = l.at("size").whole<std::uint64_t>(0, kMax);
    f.listed = l.at("listed").flag();
    if (l.has("problem")) f.problem = l.at("problem").text();
    index.listings.push_back(std::move(f));
  }
  const JsonField diffs = root.at("diffs");
  for (std::size_t i = 0; i < diffs.size_of_list(); ++i) {
    const JsonField d = diffs.at(i);
    index.diffs.push_back({d.at("pair").whole<std::size_t>(0, 10000), function_at(d.at("function")),
                           d.at("identical").flag(), d.at("changed_lines").whole<int>(0, 1 << 30)});
  }
  return index;
}

}  // namespace abench
