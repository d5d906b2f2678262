// The counting worker's layers, over the backend this binary is linked with, with the
// malloc-family interposer linked in (built once per backend: count_test_<backend>).
#include <gtest/gtest.h>

#include <malloc.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <numeric>

#include "allocators/backends.h"
#include "harness/count_runner.h"
#include "harness/counters.h"

namespace abench {
namespace {

const EntrySet kDefaultEntry = entry_sets_of(ABENCH_TEST_BACKEND).front();

// The request sizes one buffer lifetime makes under the exact policy, worked out here
// from the growth rule as the issue states it, not from the harness's code:
// grow to max(2 x capacity, required, 256) whenever the required length exceeds capacity.
std::vector<std::uint64_t> exact_request_sizes(Workload w, std::uint64_t n) {
  std::vector<std::uint64_t> sizes{n};
  std::uint64_t capacity = n;
  auto require = [&](std::uint64_t length) {
    if (length <= capacity) return;
    capacity = std::max({2 * capacity, length, std::uint64_t{256}});
    sizes.push_back(capacity);
  };
  if (w == Workload::grow) {
    require(n);
    require(n + 4 * std::max<std::uint64_t>(n, 4096));
  } else if (w == Workload::append) {
    for (std::uint64_t k = 1; k <= 8; ++k) require(k * n);
  }
  return sizes;
}

TEST(Interposer, IsActiveAndCountsMallocMadeOutsideTheHarness) {
  ASSERT_TRUE(counting_interposer_active());
  start_counting();
  char* copy = strdup("counted by the interposer");  // libc's own call to malloc
  void* block = std::malloc(100);
  block = std::realloc(block, 300);
  std::free(block);
  std::free(copy);
  stop_counting();
  EXPECT_EQ(counters().requests, 3u);
  EXPECT_EQ(counters().frees, 2u);
  EXPECT_EQ(counters().requested_bytes, std::strlen("counted by the interposer") + 1 + 100 + 300);
  EXPECT_EQ(counters().live_bytes, 0u);
}

// Allocators export these helpers themselves (mimalloc: strdup, strndup, realpath,
// reallocarray, pvalloc), allocating without the malloc symbol: the interposer defines them,
// so each is one counted request whichever library comes next.
TEST(Interposer, CountsTheLibcHelpersThatAllocate) {
  const long page = sysconf(_SC_PAGESIZE);
  start_counting();
  char* dup = strndup("abcdef", 3);
  char* path = realpath(".", nullptr);
  void* array = reallocarray(nullptr, 10, 8);
  void* paged = valloc(10);
  void* rounded = pvalloc(10);
  stop_counting();
  ASSERT_NE(dup, nullptr);
  ASSERT_NE(path, nullptr);
  EXPECT_STREQ(dup, "abc");
  EXPECT_EQ(path[0], '/');
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(paged) % static_cast<std::uintptr_t>(page), 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(rounded) % static_cast<std::uintptr_t>(page), 0u);
  EXPECT_EQ(counters().requests, 5u);
  EXPECT_EQ(counters().requested_bytes, 4 + std::strlen(path) + 1 + 80 + 10 + static_cast<std::uint64_t>(page));
  errno = 0;
  volatile std::size_t huge = SIZE_MAX / 2;  // not a constant: the compiler would refuse the call
  EXPECT_EQ(reallocarray(nullptr, huge, 4), nullptr);
  EXPECT_EQ(errno, ENOMEM);
  for (void* block : {static_cast<void*>(dup), static_cast<void*>(path), array, paged, rounded}) std::free(block);
}

// Each counting window starts with nothing live: a block of an earlier window, still
// live or freed now, is not this window's (the table is never cleared, only its window moves).
TEST(Interposer, ABlockOfAnEarlierWindowIsNotLiveInTheNext) {
  // Through a volatile pointer: GCC deletes a malloc whose block is freed unused.
  void* (*volatile allocate)(std::size_t) = std::malloc;
  start_counting();
  void* earlier = allocate(1000);
  std::free(allocate(500));
  stop_counting();
  EXPECT_EQ(counters().live_bytes, 1000u);
  start_counting();
  EXPECT_EQ(counters().live_bytes, 0u);
  void* now = allocate(200);
  EXPECT_EQ(counters().live_bytes, 200u);
  std::free(earlier);  // allocated in the window before: not subtracted from this one's
  EXPECT_EQ(counters().live_bytes, 200u);
  std::free(now);
  stop_counting();
  EXPECT_EQ(counters().live_bytes, 0u);
  EXPECT_EQ(counters().peak_live_bytes, 200u);
  EXPECT_EQ(counters().frees, 2u);
}

TEST(Interposer, CountsNothingOutsideACountingWindow) {
  start_counting();
  stop_counting();
  void* block = std::malloc(64);
  std::free(block);
  EXPECT_EQ(counters().requests, 0u);
  EXPECT_EQ(counters().frees, 0u);
}

TEST(CountRunner, ExactCountsEqualTheGrowthRuleForEveryDefaultCell) {
  int id = 0;
  for (Workload w : {Workload::allocate, Workload::zeroed, Workload::grow, Workload::append})
    for (std::uint64_t n : {64, 4096, 65536})
      for (Alignment a : {Alignment{1, 256}, Alignment{4096, 4096}})
        for (std::size_t live : {1, 64}) {
          const CellCounts c = count_cell({id++, w, Policy::exact, n, a, live}, false, nullptr, kDefaultEntry);
          ASSERT_TRUE(c.ok) << c.error;
          const auto sizes = exact_request_sizes(w, n);
          const std::uint64_t bytes = std::accumulate(sizes.begin(), sizes.end(), std::uint64_t{0});
          const std::string where = std::string(name_of(w)) + " " + std::to_string(n) + " L" + std::to_string(live);
          EXPECT_EQ(c.operations, kCountingIterations * live) << where;
          EXPECT_EQ(c.requests_min, sizes.size()) << where;
          EXPECT_EQ(c.requests_max, sizes.size()) << where;
          EXPECT_EQ(c.requests, sizes.size() * c.operations) << where;
          EXPECT_EQ(c.frees, c.operations) << where;
          EXPECT_EQ(c.requested_bytes, bytes * c.operations) << where;
          EXPECT_EQ(c.final_request_bytes_min, sizes.back()) << where;
          EXPECT_EQ(c.final_request_bytes_max, sizes.back()) << where;
          EXPECT_EQ(c.usable_bytes_min, sizes.back()) << where;
          EXPECT_GE(c.block_usable_bytes_min, c.final_request_bytes_max) << where;
          EXPECT_EQ(c.fragmentation_bytes_max, c.block_usable_bytes_max - sizes.back()) << where;
          EXPECT_EQ(c.peak_live_bytes, sizes.back() * live) << where;
          EXPECT_EQ(c.expected_requests_min, sizes.size()) << where;
          EXPECT_GT(c.peak_rss_bytes, 0u);
          EXPECT_FALSE(c.live_tracking_overflow);
        }
}

TEST(CountRunner, ExactCountsAreTheSameOnEveryRun) {
  const CellSpec cell{0, Workload::append, Policy::exact, 4096, {1, 256}, 64};
  const CellCounts a = count_cell(cell, false, nullptr, kDefaultEntry),
                   b = count_cell(cell, false, nullptr, kDefaultEntry);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.requested_bytes, b.requested_bytes);
  EXPECT_EQ(a.final_request_bytes_max, b.final_request_bytes_max);
}

TEST(CountRunner, PaddedRequestsCapacityPlusAlignmentAndReportsTheSpread) {
  const CellCounts c =
      count_cell({0, Workload::allocate, Policy::padded, 64, {4096, 4096}, 64}, false, nullptr, kDefaultEntry);
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(c.requests, c.operations);
  EXPECT_EQ(c.final_request_bytes_min, 64u + 4096u);
  // capacity = end of block - aligned data pointer: between 64 + 1 and 64 + 4096.
  EXPECT_GT(c.usable_bytes_min, 64u);
  EXPECT_LE(c.usable_bytes_max, 64u + 4096u);
  EXPECT_GE(c.block_usable_bytes_min, c.final_request_bytes_max);
}

TEST(CountRunner, PairAndBatchMakeOneRequestAndOneFreePerBlock) {
  for (Workload w : {Workload::pair, Workload::batch, Workload::batch_reverse}) {
    const CellCounts c = count_cell({0, w, Policy::exact, 32, {1, 1}, 64}, false, nullptr, kDefaultEntry);
    ASSERT_TRUE(c.ok) << c.error;
    EXPECT_EQ(c.requests, c.operations) << name_of(w);
    EXPECT_EQ(c.frees, c.operations) << name_of(w);
    EXPECT_EQ(c.requested_bytes, 32 * c.operations) << name_of(w);
    EXPECT_EQ(c.final_request_bytes_max, 32u);
    EXPECT_GE(c.block_usable_bytes_min, 32u);
    // A pair never has two blocks live; a batch has all 64.
    EXPECT_EQ(c.peak_live_bytes, w == Workload::pair ? 32u : 32u * 64u) << name_of(w);
  }
}

TEST(CountRunner, CrossThreadCountsOneRequestAndOneFreePerObjectAcrossThreads) {
  const CellCounts c = count_cell({0, Workload::xthread, Policy::exact, 64, {1, 1}, 1}, false, nullptr, kDefaultEntry);
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_GT(c.operations, 1000u);
  EXPECT_EQ(c.requests, c.operations);
  EXPECT_EQ(c.frees, c.operations);  // freed on the consumer thread, counted all the same
  EXPECT_EQ(c.requested_bytes, 64 * c.operations);
}

TEST(CountRunner, WorkingSetMakesOneRequestPerObjectAndFreesThemUnlessAnArena) {
  const CellCounts c =
      count_cell({0, Workload::workingset, Policy::exact, 1024, {1, 1}, 1000}, false, nullptr, kDefaultEntry);
  ASSERT_TRUE(c.ok) << c.error;
  EXPECT_EQ(c.operations, kCountingIterations * 1000u);
  EXPECT_EQ(c.requests, c.operations);
  // The arena gives everything back in one release_all, so no object is freed alone.
  EXPECT_EQ(c.frees, std::string(ABENCH_TEST_BACKEND) == "arena" ? 0u : c.operations);
  EXPECT_LE(c.final_request_bytes_max, 1024u);
}

TEST(CountRunner, NoopMakesNoRequests) {
  const CellCounts c = count_cell({0, Workload::noop, Policy::exact, 64, {1, 256}, 8}, false, nullptr, kDefaultEntry);
  ASSERT_TRUE(c.ok);
  EXPECT_EQ(c.requests, 0u);
  EXPECT_EQ(c.frees, 0u);
}

}  // namespace
}  // namespace abench
