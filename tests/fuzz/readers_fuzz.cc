// libFuzzer over the readers of tests/fuzz/reader_targets.h: ABENCH_FUZZ_TARGET names the
// reader; scripts/fuzz runs each with its seed corpus.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "src/util/errors.h"
#include "tests/fuzz/reader_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto& target = [] {
    const char* name = std::getenv("ABENCH_FUZZ_TARGET");
    const auto found = abench::fuzz::reader_targets().find(name ? name : "");
    if (found == abench::fuzz::reader_targets().end()) {
      std::fprintf(stderr,
                   "ABENCH_FUZZ_TARGET: one of json, matrix, variant, gate, results, noise, gate-verdict, "
                   "compare, protocol\n");
      std::abort();
    }
    return found->second;
  }();
  try {
    target(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const abench::UsageError&) {
    // refused with a message: what a reader must do with bad input
  }
  return 0;
}
