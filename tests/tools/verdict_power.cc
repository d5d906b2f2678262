// abench-verdict-power: the one rule on real A/A data. Reads the results.json of an A/A
// compare (the same variant on both sides), and prints how many cells the rule calls
// faster or slower as measured, and how many it finds when the candidate side of one
// workload is multiplied by a factor (a known change planted in real noise), the other
// workloads' calls standing for false alarms. docs/statistics.md quotes its output.
//
//   abench-verdict-power RESULTS.json [MORE.json...] [factor...]
//
// Several files of the same compare plan are pooled round by round (as the gate's
// confirmation pools its second run): their rounds add up.
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/verdict/compare.h"
#include "src/util/errors.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "src/verdict/change_rule.h"
#include "src/verdict/pairing.h"

namespace {

using namespace abench;

// The rule's call on a pair with its candidate side multiplied by `factor`.
Call call_of(const CellPair& pair, double factor, const VerdictSettings& settings) {
  CellSides sides = pair.sides();
  for (auto& process : sides.after)
    for (double& sample : process) sample *= factor;
  return judge_change(sides, settings.confidence, settings.min_effect).call;
}

bool is_call(Call c) { return c == Call::slower || c == Call::faster; }

int run(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: abench-verdict-power RESULTS.json [MORE.json...] [factor...]\n");
    return 2;
  }
  std::vector<double> factors;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.ends_with(".json"))
      files.push_back(arg);
    else
      factors.push_back(std::stod(arg));
  }
  if (factors.empty()) factors = {1.10, 1.05, 1.03};
  RunResults results = load_results(files.at(0));
  for (std::size_t f = 1; f < files.size(); ++f) pool_rounds(results, load_results(files[f]));
  std::vector<CellPair> pairs = pair_sides(results);
  std::erase_if(pairs, [](const CellPair& p) { return !p.problem.empty(); });
  const VerdictSettings settings;
  std::set<std::string> workloads;
  for (const auto& p : pairs) workloads.insert(p.workload);

  int aa = 0, paired = 0;
  std::vector<bool> aa_called;  // as measured, per pair: the false alarms of every row below
  for (const auto& p : pairs) {
    aa_called.push_back(is_call(call_of(p, 1.0, settings)));
    aa += aa_called.back();
    paired += !p.before_rounds.empty();
  }
  fmt::print("{}: {} cells ({} paired by round, {} rounds); as measured (A/A) {} called faster or slower ({:.1f}%)\n",
             fmt::join(files, " + "), pairs.size(), paired, pairs.empty() ? 0 : pairs.front().before.size(), aa,
             100.0 * aa / static_cast<double>(pairs.size()));
  fmt::print("| factor | workload | found in it | called elsewhere |\n|--:|---|--:|--:|\n");
  for (double factor : factors)
    for (const std::string& workload : workloads) {
      int in = 0, found = 0, out = 0, false_calls = 0;
      for (std::size_t i = 0; i < pairs.size(); ++i) {
        if (pairs[i].workload == workload) {
          ++in;
          found += call_of(pairs[i], factor, settings) == (factor >= 1 ? Call::slower : Call::faster);
        } else {
          ++out;
          false_calls += aa_called[i];
        }
      }
      fmt::print("| {:.2f} | {} | {}/{} ({:.0f}%) | {}/{} ({:.1f}%) |\n", factor, workload, found, in,
                 100.0 * found / in, false_calls, out, 100.0 * false_calls / out);
    }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "abench-verdict-power: %s\n", e.what());
    return 2;
  }
}
