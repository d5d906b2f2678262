#include "src/report/report_hot_path.h"

#include <fmt/format.h>

#include "src/explain/hot_path_files.h"
#include "src/explain/work_figures.h"
#include "src/util/errors.h"
#include "src/util/json_file.h"
#include "src/util/text.h"

namespace abench {
namespace {

constexpr std::uintmax_t kMaxListingBytes = std::uintmax_t{1} << 20;

std::string listing_text(const std::filesystem::path& dir, std::size_t variant, const std::string& function) {
  return printable(read_bounded_file((dir / listing_file_name(variant, function)).string(), "a hot path listing",
                                     kMaxListingBytes, false));
}

}  // namespace

std::vector<ReportHotPath> read_report_hot_paths(const std::filesystem::path& run_dir,
                                                 std::vector<std::string>& warnings) {
  const std::filesystem::path dir = run_dir / kExplainDirectory / kHotPathDirectory;
  if (!std::filesystem::exists(dir / "index.json")) return {};
  std::vector<ReportHotPath> out;
  try {
    const HotPathIndex index = read_hot_path_index(dir);
    const auto listing_of = [&](std::size_t variant, const std::string& function) -> const FunctionListing* {
      for (const FunctionListing& l : index.listings)
        if (l.variant == variant && l.function == function && l.listed) return &l;
      return nullptr;
    };
    const auto side = [&](const FunctionListing& l) {
      return std::pair{printable(l.label + ": " + l.object), listing_text(dir, l.variant, l.function)};
    };
    for (const FunctionDiff& d : index.diffs) {
      const FunctionListing* before = listing_of(2 * d.pair, d.function);
      const FunctionListing* after = listing_of(2 * d.pair + 1, d.function);
      if (!before || !after) continue;
      ReportHotPath h{d.function, {side(*before), side(*after)}, "", d.changed_lines};
      h.diff = printable(read_bounded_file((dir / diff_file_name(d.pair, d.function)).string(), "a hot path diff",
                                           kMaxListingBytes, false));
      out.push_back(std::move(h));
    }
    if (index.diffs.empty())  // a run: each variant's listings alone
      for (const FunctionListing& l : index.listings)
        if (l.listed) out.push_back({l.function, {side(l)}, std::nullopt, 0});
  } catch (const UsageError& e) {
    warnings.push_back(std::string("the hot path is not shown: ") + e.what());
    return {};
  }
  return out;
}

std::string hot_path_html(const std::vector<ReportHotPath>& hot_paths, std::string (*escape)(std::string_view)) {
  if (hot_paths.empty()) return "";
  std::string out =
      "<h2 id=\"hot-path\">Hot path</h2>\n<p>The allocator functions the cells call, disassembled with "
      "objdump in the object that served them (explain/hot-path/); for a compare, the diff of the two "
      "sides with addresses left out.</p>\n";
  for (const ReportHotPath& h : hot_paths) {
    const std::string summary = !h.diff           ? h.listings.front().first
                                : h.diff->empty() ? "the same instructions on both sides"
                                                  : fmt::format("{} lines differ", h.changed_lines);
    out += fmt::format("<details class=\"hot-path\"><summary><code>{}</code>: {}</summary>\n", escape(h.function),
                       escape(summary));
    if (h.diff && !h.diff->empty()) out += "<h3>diff</h3>\n<pre>" + escape(*h.diff) + "</pre>\n";
    for (const auto& [label, listing] : h.listings)
      out += fmt::format("<h3>{}</h3>\n<pre>{}</pre>\n", escape(label), escape(listing));
    out += "</details>\n";
  }
  return out;
}

}  // namespace abench
