// The files a verdict is written to, one way for every workflow that judges: gate.md and
// gate.json (and $GITHUB_STEP_SUMMARY), compare.md/.csv/.json, noise.json. Each file is
// written atomically; the tables are printed as they are written.
#pragma once

#include <filesystem>
#include <string>

#include "src/results/noise_file.h"
#include "src/verdict/compare.h"
#include "src/verdict/gate.h"

namespace abench {

// gate.md, gate.json and the step summary; prints the table and where they are; draws the
// report when asked.
void write_gate_files(const GateVerdict& verdict, const std::filesystem::path& dir, bool draw_report);

// compare.md (with `context_text` below the table), compare.csv, compare.json; returns the
// Markdown.
std::string write_compare_files(const Comparison& comparison, const std::filesystem::path& dir,
                                const std::string& context_text = "");

// dir/noise.json; returns the text written.
std::string write_noise_file(const NoiseFile& noise, const std::filesystem::path& dir);

}  // namespace abench
