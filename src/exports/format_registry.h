// Every export abench writes beside results.json when --format names it: one entry per
// format, from which --format's help, its validation, the writing and docs/results.md's
// list are drawn. A new format is one entry here and one file of src/exports/.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "src/results/results.h"

namespace abench {

struct ExportFormat {
  std::string_view name;    // --format NAME
  std::string_view file;    // written in the output directory
  std::string_view reader;  // the tools it is for
  std::string (*render)(const RunResults& results);
  // Why the format cannot hold this measure ("" when it can): --format refuses it before anything runs.
  std::string (*cannot_hold)(Measure measure) = nullptr;
};

const std::vector<ExportFormat>& export_formats();

// "gbench (benchmark.json, for ...), ...": --format's help.
std::string formats_help();
// Throws UsageError naming the allowed formats for an unknown one, or the measure a format cannot hold.
void check_formats(const std::vector<std::string>& formats, Measure measure);
// Writes each format named, atomically.
void write_formats(const std::filesystem::path& dir, const RunResults& results,
                   const std::vector<std::string>& formats);

// The renderers (one file each).
std::string google_benchmark_json(const RunResults& results);          // a repetition per process
std::string google_benchmark_samples_json(const RunResults& results);  // a repetition per sample
std::string go_benchmark_text(const RunResults& results);              // a line per process
std::string go_benchmark_samples_text(const RunResults& results);      // a line per sample
std::string bencher_json(const RunResults& results);
std::string action_benchmark_json(const RunResults& results);  // customSmallerIsBetter

}  // namespace abench
