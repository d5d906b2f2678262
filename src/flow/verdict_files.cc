#include "src/flow/verdict_files.h"

#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "src/report/report_writer.h"
#include "src/util/atomic_file.h"
#include "src/verdict/compare_file.h"
#include "src/verdict/gate_file.h"

namespace abench {

void write_gate_files(const GateVerdict& verdict, const std::filesystem::path& dir, bool draw_report) {
  const std::string markdown = gate_markdown(verdict);
  write_file_atomically(dir / "gate.md", markdown);
  write_file_atomically(dir / "gate.json", gate_json(verdict).dump(2) + "\n");
  if (const char* summary = std::getenv("GITHUB_STEP_SUMMARY"); summary && *summary) {
    std::ofstream out(summary, std::ios::app);
    out << markdown << "\n";
  }
  fmt::print("{}\n", markdown);
  fmt::print("gate: {}/gate.md, {}/gate.json\n", dir.string(), dir.string());
  if (draw_report) write_report_or_warn(dir);
}

std::string write_compare_files(const Comparison& comparison, const std::filesystem::path& dir,
                                const std::string& context_text) {
  const std::string markdown = comparison_markdown(comparison, context_text);
  write_file_atomically(dir / "compare.md", markdown);
  write_file_atomically(dir / "compare.csv", comparison_csv(comparison));
  write_file_atomically(dir / "compare.json", comparison_json(comparison).dump(2) + "\n");
  return markdown;
}

std::string write_noise_file(const NoiseFile& noise, const std::filesystem::path& dir) {
  const std::string text = noise_to_json(noise).dump(2) + "\n";
  write_file_atomically(dir / "noise.json", text);
  return text;
}

}  // namespace abench
