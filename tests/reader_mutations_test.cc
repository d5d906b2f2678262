// A short mutation run over every reader of outside input, in every suite (sanitized too, where
// ASan and UBSan watch it): each target of tests/fuzz/reader_targets.h gets its seeds and a fixed
// number of inputs mutated from them by a seeded generator, so a run is the same every time and a
// finding reproduces. Not coverage-guided: scripts/fuzz runs the same targets under libFuzzer for
// as long as one likes. A reader may refuse an input (UsageError); any other exception fails
// here, naming the target and the input (written beside the test's temporary files), and a crash
// or a sanitizer report ends the test binary with the input of the moment left in that file.
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "harness/protocol.h"
#include "src/util/errors.h"
#include "tests/emulation.h"
#include "tests/fuzz/reader_targets.h"

namespace abench {
namespace {

// 1,500 a target: 4 s for all nine here, 20 sanitized; under qemu-user, where every instruction
// is translated, a tenth (the same generator, so the first 150 of the native run's inputs).
int mutants_per_target() { return testing::emulator_here() ? 150 : 1500; }

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A worker's lines for the protocol target's plan (4 cells: ids 0-3), as a real worker writes them.
std::string protocol_lines() {
  WorkerHello hello;
  hello.backend = "system";
  hello.allocator_version = "glibc 2.36";
  hello.malloc_object = "libc.so.6";
  hello.pid = 42;
  hello.order = {2, 0, 3, 1};
  std::string lines = nlohmann::json(hello).dump() + "\n";
  for (int id : hello.order) {
    CellReport r;
    r.id = id;
    r.ok = id != 3;
    r.error = r.ok ? "" : "allocate returned NULL";
    r.iterations = 1000;
    r.ops_per_iteration = 1;
    r.sample_iterations = {1000, 1000, 1000};
    r.sample_ns_per_op = {10.5, 10.25, 11.0};
    lines += nlohmann::json(r).dump() + "\n";
  }
  return lines + R"({"type":"done"})" + "\n";
}

std::vector<std::string> seeds_of(const std::string& target) {
  const std::string source = ABENCH_SOURCE_DIR_FOR_LAYERS, data = ABENCH_TEST_DATA;
  if (target == "json" || target == "matrix")
    return {file_text(source + "/matrices/quick.json"), file_text(source + "/matrices/default.json")};
  if (target == "variant")
    return {"backend=system,policy=exact", "backend=jemalloc,label=v1,env=MALLOC_CONF=dirty_decay_ms:0",
            "backend=mimalloc,policy=padded,entry=portable"};
  if (target == "gate")
    return {R"({"threshold_percent": 5, "noise_multiplier": 2, "workloads": {"append": 8},)"
            R"( "cells": [{"match": "jemalloc/*/grow/*", "threshold_percent": 10}]})"};
  if (target == "results") return {fuzz::results_file_of_a_small_run()};
  if (target == "noise") return {R"({"schema": "abench.noise", "cells": {"system/exact/allocate/64/1:256/1": 0.02}})"};
  if (target == "gate-verdict") return {file_text(data + "/golden/gate.json")};
  if (target == "compare") return {file_text(data + "/golden/compare.json")};
  if (target == "protocol") return {protocol_lines()};
  return {};
}

// One to four edits of the kinds that find readers' holes: bytes flipped, inserted or cut,
// a stretch repeated, a number made huge or negative, a JSON token where another was.
std::string mutated(std::string text, std::mt19937_64& random) {
  static const std::vector<std::string> tokens{"null", "[]", "{}",           "-1", "1e309", "18446744073709551616",
                                               "\"\"", ",",  "\"\xff\xfe\"", "0",  "true",  "\"../../x\"",
                                               "\n"};
  const auto at = [&](std::size_t size) { return size == 0 ? 0 : random() % (size + 1); };
  for (int edits = 1 + static_cast<int>(random() % 4); edits > 0; --edits) {
    const std::size_t where = at(text.size());
    switch (random() % 6) {
      case 0:
        if (where < text.size()) text[where] = static_cast<char>(text[where] ^ (1 << (random() % 8)));
        break;
      case 1: text.insert(where, 1, static_cast<char>(random() % 256)); break;
      case 2: text.erase(where, random() % 32); break;
      case 3: text.insert(where, text.substr(at(text.size()), random() % 64)); break;
      case 4: {
        const std::size_t digit = text.find_first_of("0123456789", where);
        if (digit != std::string::npos) text.insert(digit, random() % 2 ? "-" : "99999999999999999999");
        break;
      }
      default: text.insert(where, tokens[random() % tokens.size()]);
    }
  }
  return text;
}

class ReaderMutations : public ::testing::TestWithParam<std::string> {};

TEST_P(ReaderMutations, EveryInputIsReadOrRefusedWithAMessage) {
  const auto& target = fuzz::reader_targets().at(GetParam());
  const std::vector<std::string> seeds = seeds_of(GetParam());
  ASSERT_FALSE(seeds.empty());
  const std::string last_input = ::testing::TempDir() + "abench-mutation-" + GetParam() + ".input";
  // Each seed is read whole: the mutants start from input that reaches every check.
  for (const std::string& seed : seeds) ASSERT_NO_THROW(target(seed)) << GetParam() << ": a seed is refused";
  std::mt19937_64 random(0x5eed);
  for (int i = 0, n = mutants_per_target(); i < n; ++i) {
    const std::string input = mutated(seeds[random() % seeds.size()], random);
    std::ofstream(last_input, std::ios::binary | std::ios::trunc) << input;  // what a crash leaves behind
    try {
      target(input);
    } catch (const UsageError&) {
      // what a reader must do with bad input
    } catch (const std::exception& e) {
      ADD_FAILURE() << GetParam() << ", mutant " << i << " (in " << last_input << "): not a UsageError but "
                    << typeid(e).name() << ": " << e.what();
      return;
    }
  }
  std::remove(last_input.c_str());
}

INSTANTIATE_TEST_SUITE_P(Targets, ReaderMutations,
                         ::testing::Values("json", "matrix", "variant", "gate", "results", "noise", "gate-verdict",
                                           "compare", "protocol"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

}  // namespace
}  // namespace abench
