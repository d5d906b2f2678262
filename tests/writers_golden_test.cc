// The verdict writers on synthetic results against golden files (tests/data/golden/): compare.md,
// compare.csv, compare.json, gate.md and gate.json, byte for byte, so a change of format is a
// change of a file in the same commit. ABENCH_UPDATE_GOLDEN=1 writes them anew. compare.json,
// gate.json and noise.json also go write -> read -> write to the same bytes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/results/noise_file.h"
#include "src/verdict/compare.h"
#include "src/verdict/compare_file.h"
#include "src/verdict/gate.h"
#include "src/verdict/gate_file.h"
#include "src/verdict/pairing.h"
#include "tests/synthetic_results.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

const std::filesystem::path kGolden = std::filesystem::path(ABENCH_TEST_DATA) / "golden";

void expect_golden(const std::string& name, const std::string& text) {
  const auto path = kGolden / name;
  if (const char* update = std::getenv("ABENCH_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::filesystem::create_directories(kGolden);
    std::ofstream(path, std::ios::binary) << text;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << path << " is missing (ABENCH_UPDATE_GOLDEN=1 writes it)";
  std::stringstream golden;
  golden << in.rdbuf();
  EXPECT_EQ(text, golden.str()) << name << " differs from " << path;
}

// A compare whose candidate is 10% slower, with one failed cell and one undecided by rounds.
RunResults changed_compare() {
  RunResults r = testing::synthetic_compare(6, 1.1);
  r.cells[static_cast<std::size_t>(r.plan.partner[1])].failures.push_back(
      "worker new (round 3) killed by signal 11 (SIGSEGV) while running this cell");
  r.cells[2].processes.resize(5);  // partial: measured by 5 of its 6 processes
  resummarize_all(r);
  return r;
}

TEST(WritersGolden, CompareFiles) {
  const Comparison c = compare_results(changed_compare(), VerdictSettings{});
  expect_golden("compare.md", comparison_markdown(c));
  expect_golden("compare.csv", comparison_csv(c));
  expect_golden("compare.json", comparison_json(c).dump(2) + "\n");
}

GateVerdict changed_gate() {
  GateRules rules;
  rules.workload_thresholds["grow"] = 0.15;
  return evaluate_gate(pair_sides(changed_compare()), rules, {{"system/exact/allocate/4096/1:256/1", 0.08}},
                       VerdictSettings{});
}

TEST(WritersGolden, GateFiles) {
  const GateVerdict v = changed_gate();
  expect_golden("gate.md", gate_markdown(v));
  expect_golden("gate.json", gate_json(v).dump(2) + "\n");
}

TEST(WritersGolden, CompareFileReadsBackToTheSameBytesAndEveryWriterAgrees) {
  const Comparison c = compare_results(changed_compare(), VerdictSettings{0.02, 0.99});
  const std::string json = comparison_json(c).dump(2);
  const Comparison read = comparison_from_json(nlohmann::json::parse(json), "compare.json");
  EXPECT_EQ(comparison_json(read).dump(2), json);
  EXPECT_EQ(comparison_markdown(read), comparison_markdown(c));
  EXPECT_EQ(comparison_csv(read), comparison_csv(c));
}

TEST(WritersGolden, GateAndNoiseFilesReadBackToTheSameBytes) {
  const std::string gate = gate_json(changed_gate()).dump(2);
  EXPECT_EQ(gate_json(gate_verdict_from_json(nlohmann::json::parse(gate), "gate.json")).dump(2), gate);

  testing::TempDir dir;
  NoiseFile noise;
  noise.floors = {{"system/exact/allocate/64/1:256/1", 0.012}, {"system/exact/grow/64/1:256/1", 0.5}};
  noise.about = {{"method", "largest |change|"}, {"runs", 3}, {"conditions", {{"cpu_model", "test"}}}};
  const std::string text = noise_to_json(noise).dump(2) + "\n";
  const NoiseFile read = read_noise_file(dir.write("noise.json", text));
  EXPECT_EQ(read.floors, noise.floors);
  EXPECT_EQ(noise_to_json(read).dump(2) + "\n", text);
}

}  // namespace
}  // namespace abench
