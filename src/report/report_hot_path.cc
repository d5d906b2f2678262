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

// explain/hot-path/NAME, read below the results directory: through no link.
std::string hot_path_text(const std::filesystem::path& run_dir, const std::string& name, const std::string& what) {
  return printable(read_bounded_file_below(run_dir, std::filesystem::path(kExplainDirectory) / kHotPathDirectory / name,
                                           what, kMaxListingBytes));
}

}  // namespace

std::vector<ReportHotPath> read_report_hot_paths(const std::filesystem::path& run_dir,
                                                 std::vector<std::string>& warnings) {
  const std::filesystem::path dir = run_dir / kExplainDirectory / kHotPathDirectory;
  std::error_code ec;
  if (!std::filesystem::exists(std::filesystem::symlink_status(dir / "index.json", ec))) return {};
  std::vector<ReportHotPath> out;
  try {
    const HotPathIndex index = read_hot_path_index(run_dir);
    const auto listing_of = [&](std::size_t variant, const std::string& function) -> const FunctionListing* {
      for (const FunctionListing& l : index.listings)
        if (l.variant == variant && l.function == function && l.listed) return &l;
      return nullptr;
    };
    const auto side = [&](const FunctionListing& l) {
      return std::pair{printable(l.label + ": " + l.object),
                       hot_path_text(run_dir, listing_file_name(l.variant, l.function), "a hot path listing")};
    };
    for (const FunctionDiff& d : index.diffs) {
      const FunctionListing* before = listing_of(2 * d.pair, d.function);
      const FunctionListing* after = listing_of(2 * d.pair + 1, d.function);
      if (!before || !after) continue;
      ReportHotPath h{d.function, {side(*before), side(*after)}, "", d.changed_lines};
      h.diff = hot_path_text(run_dir, diff_file_name(d.pair, d.function), "a hot path diff");
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
