// abench-history-bench: how fast a history store records and reads back, and how the change
// point rule does on simulated series. docs/history.md and docs/statistics.md quote its output.
//
//   abench-history-bench record STORE [RUNS] [CELLS/2]   RUNS runs of 2 x CELLS/2 cells recorded,
//                                                        then every series read and split
//   abench-history-bench simulate                        the rule's false change points and power
//   abench-history-bench simulate-gate                   gate --history's false regressions and power
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <fmt/format.h>

#include "src/stats/change_points.h"
#include "src/store/history_changes.h"
#include "src/store/history_series.h"
#include "src/store/history_store.h"
#include "src/verdict/segment_rule.h"
#include "tests/synthetic_results.h"

namespace {

using namespace abench;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int record(const std::string& path, int runs, int half_cells) {
  // half_cells = 2 workloads x sizes x lives: 6 x 6 lives gives 72, 144 cells with both variants.
  std::vector<std::size_t> sizes, lives;
  for (int i = 0; i < 6; ++i) sizes.push_back(std::size_t{16} << i);
  for (int i = 0; i < std::max(1, half_cells / 12); ++i) lives.push_back(std::size_t{1} << i);
  RunResults run = testing::synthetic_compare(3, 1.0, sizes, lives);
  std::printf("%zu cells a run\n", run.cells.size());
  std::mt19937_64 random(1);
  std::normal_distribution<double> noise(0, 0.01);
  HistoryStore store(path);
  double slowest = 0, total = 0;
  for (int r = 0; r < runs; ++r) {
    run.run_id = fmt::format("{:016x}", r + 1);
    for (CellRecord& cell : run.cells) cell.summary.ns_per_op = 100 * std::exp(noise(random));
    const auto start = std::chrono::steady_clock::now();
    store.record(run, {fmt::format("c{:04d}", r), "main", "bench", ""});
    const double took = seconds_since(start);
    slowest = std::max(slowest, took), total += took;
  }
  std::printf("recorded %d runs: %.4f s a run on average, %.4f s the slowest\n", runs, total / runs, slowest);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<Series> series = read_series(store, {});
  const double read = seconds_since(start);
  const std::vector<SeriesChange> changes = find_changes(series, ChangePointRule{});
  std::printf("%zu series of %zu points read in %.3f s, split in %.3f s more (%zu changes)\n", series.size(),
              series.empty() ? 0 : series[0].points.size(), read, seconds_since(start) - read, changes.size());
  return 0;
}

std::vector<double> simulated(std::size_t n, double sd, double step, std::size_t at, std::mt19937_64& random) {
  std::normal_distribution<double> noise(0, sd);
  std::vector<double> x;
  for (std::size_t i = 0; i < n; ++i) x.push_back(100 * (i >= at ? 1 + step : 1) * std::exp(noise(random)));
  return x;
}

int simulate() {
  std::mt19937_64 random(2026);
  const ChangePointRule rule;
  std::printf("| noise | false, 24 points | 50 | 100 | 500 |");
  for (int step : {2, 3, 5})
    for (int side : {5, 10, 20}) std::printf(" %d%%, %d a side |", step, side);
  std::printf("\n");
  for (double sd : {0.005, 0.01, 0.02}) {
    std::printf("| %.1f%% |", sd * 100);
    for (int n : {24, 50, 100, 500}) {
      const int count = n == 500 ? 1000 : 5000;
      int false_series = 0;
      for (int s = 0; s < count; ++s)
        false_series += change_points(simulated(n, sd, 0, 0, random), rule).empty() ? 0 : 1;
      std::printf(" %.2f%% |", 100.0 * false_series / count);
    }
    for (double step : {0.02, 0.03, 0.05})
      for (std::size_t side : {5, 10, 20}) {
        int found = 0;
        for (int s = 0; s < 2000; ++s) {
          const auto points = change_points(simulated(2 * side, sd, step, side, random), rule);
          found += points.size() == 1 && points[0].index + 1 >= side && points[0].index <= side + 1 ? 1 : 0;
        }
        std::printf(" %.0f%% |", 100.0 * found / 2000);
      }
    std::printf("\n");
  }
  return 0;
}

// gate --history (src/verdict/segment_rule.h) on a segment of n runs and one more run `step`
// away, at the gate's defaults (95%, a 5% threshold): the share called a regression, and with
// `confirmed` the share still called after a second run (called alone and pooled with the
// first, as the gate does). With `outliers`, one run in 20 (segment or gated) moves by 4 x sd,
// as a noisy CI runner's would.
double gate_calls(std::size_t n, double sd, double step, bool outliers, bool confirmed, std::mt19937_64& random) {
  std::normal_distribution<double> noise(0, sd);
  std::bernoulli_distribution odd(0.05);
  auto figure = [&](double level) { return level * std::exp(noise(random) + (outliers && odd(random) ? 4 * sd : 0)); };
  auto slower = [](const std::vector<double>& segment, const std::vector<double>& runs) {
    return judge_against_segment(segment, runs, 0.95, 0.05, 0.05).call == Call::slower;
  };
  const int trials = 20000;
  int called = 0;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> segment;
    for (std::size_t i = 0; i < n; ++i) segment.push_back(figure(100));
    const double first = figure(100 * (1 + step));
    if (!slower(segment, {first})) continue;
    if (!confirmed) {
      ++called;
      continue;
    }
    const double second = figure(100 * (1 + step));
    called += slower(segment, {second}) && slower(segment, {first, second});
  }
  return 100.0 * called / trials;
}

int simulate_gate() {
  std::mt19937_64 random(2026);
  std::printf(
      "| noise | points | false | false, outliers | confirmed: false, outliers | +5%% | +7%% | +10%% | confirmed: +5%% "
      "| +7%% | +10%% |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (double sd : {0.005, 0.01, 0.02})
    for (std::size_t n : {5, 10, 20}) {
      std::printf("| %.1f%% | %zu | %.2f%% | %.2f%% | %.2f%% |", sd * 100, n,
                  gate_calls(n, sd, 0, false, false, random), gate_calls(n, sd, 0, true, false, random),
                  gate_calls(n, sd, 0, true, true, random));
      for (bool confirmed : {false, true})
        for (double step : {0.05, 0.07, 0.10})
          std::printf(" %.0f%% |", gate_calls(n, sd, step, false, confirmed, random));
      std::printf("\n");
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  try {
    if (mode == "record" && argc >= 3)
      return record(argv[2], argc > 3 ? std::stoi(argv[3]) : 500, argc > 4 ? std::stoi(argv[4]) : 72);
    if (mode == "simulate") return simulate();
    if (mode == "simulate-gate") return simulate_gate();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "abench-history-bench: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr, "usage: abench-history-bench record STORE [RUNS] [CELLS/2] | simulate | simulate-gate\n");
  return 2;
}
