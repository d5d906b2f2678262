// A counting worker started by the real launcher, as abench starts one.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/protocol.h"
#include "src/run/process_launcher.h"
#include "tests/built_paths.h"

namespace abench {
namespace {

// At exec the kernel keeps the larger of the new image's peak RSS and its spawner's, and
// getrusage reports that: a 64-byte cell counted by a worker that a 256 MiB process started
// reported 256 MiB. The figure must be the worker's own.
TEST(CountingWorker, ReportsItsOwnPeakRssNotThatOfTheProcessThatStartedIt) {
  constexpr std::size_t kSpawnerBytes = std::size_t{256} << 20;
  std::vector<char> spawner_memory(kSpawnerBytes, 1);  // resident: every page written
  WorkerRequest request;
  request.mode = WorkerMode::count;
  CellSpec cell;
  cell.id = 0;
  cell.workload = Workload::allocate;
  cell.size = 64;
  cell.alignment = {1, 64};
  cell.live = 1;
  request.cells = {cell};
  request.pin = false;
  request.order = CellOrder::matrix;
  const LaunchRequest launch{testing::built::kCounterSystem, {}, {}, nlohmann::json(request).dump() + "\n", 60};
  std::vector<nlohmann::json> counts;
  ProcessLauncher launcher;
  const LaunchOutcome outcome = launcher.run(launch, [&](std::string_view line) {
    auto message = nlohmann::json::parse(line);
    if (message.contains("peak_rss_bytes")) counts.push_back(std::move(message));
    return 0.0;
  });
  ASSERT_EQ(outcome.exit_code, 0) << describe(outcome) << outcome.stderr_tail;
  ASSERT_EQ(counts.size(), 1u);
  const auto peak = counts.front().at("peak_rss_bytes").get<std::uint64_t>();
  EXPECT_GT(peak, 0u);
  // A worker's own image (libraries, the request, one 64-byte cell) is a few MiB; under
  // qemu-user the emulator's own memory adds tens.
  EXPECT_LT(peak, kSpawnerBytes / 2) << "the spawner's " << kSpawnerBytes << " bytes";
  EXPECT_EQ(spawner_memory[kSpawnerBytes - 1], 1);
}

}  // namespace
}  // namespace abench
