// --explain's hot path on disk: each variant's entry functions as objdump shows them in the
// object that served them, and for a compare each pair's functions diffed, under
// explain/hot-path/, with index.json saying what is there. The report reads them as data:
// names checked, file names derived (never taken from the index), text escaped.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace abench {

inline constexpr const char* kHotPathDirectory = "hot-path";  // under explain/

struct FunctionListing {
  std::size_t variant = 0;
  std::string label;     // the variant's
  std::string function;  // the symbol the cells call (mi_malloc)
  std::string object;    // the file that served it
  std::uint64_t file_address = 0, size = 0;
  bool listed = false;  // its listing file is there
  std::string problem;  // why not
};

struct FunctionDiff {
  std::size_t pair = 0;
  std::string function;
  bool identical = false;  // the normalised listings agree
  int changed_lines = 0;   // lines removed plus lines added
};

struct HotPathIndex {
  std::vector<FunctionListing> listings;
  std::vector<FunctionDiff> diffs;
};

// A symbol abench names files after: letters, digits, _ and ., at most 100.
bool is_function_name(std::string_view name);
std::string listing_file_name(std::size_t variant, std::string_view function);  // "1-mi_malloc.s"
std::string diff_file_name(std::size_t pair, std::string_view function);        // "pair0-mi_malloc.diff"

// objdump's lines of one function without what moves between builds of the same code: the
// instruction's own address, branch and call targets' addresses (their <symbol+offset> stays),
// RIP-relative displacements.
std::string normalised_listing(std::string_view objdump_text);

nlohmann::json hot_path_index_json(const HotPathIndex& index);
// Reads explain/hot-path/index.json below a results directory as data from elsewhere, through
// no link: UsageError naming the field when malformed.
HotPathIndex read_hot_path_index(const std::filesystem::path& results_dir);

}  // namespace abench
