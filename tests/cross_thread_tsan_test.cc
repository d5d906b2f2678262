// The cross-thread workload under ThreadSanitizer (built with -fsanitize=thread): the
// queue and the producer/consumer handover must be free of data races, over the system
// allocator, at several sizes and with the queue filling up.
#include <gtest/gtest.h>

#include "harness/cross_thread.h"
#include "harness/native_allocator.h"
#include "harness/pinning.h"

namespace abench {
namespace {

TEST(CrossThreadUnderTsan, EveryObjectIsFreedByTheConsumerWithoutRaces) {
  for (std::size_t size : {16, 256, 4096}) {
    CrossThreadRun<NativeAllocator<>> run(NativeAllocator<>{}, size, 16, -1, pin_thread);
    for (int batch = 0; batch < 5; ++batch) ASSERT_TRUE(run.run_batch(3000));
    EXPECT_EQ(run.freed(), 15000u);
  }
}

TEST(CrossThreadUnderTsan, QueueKeepsOrderAndCount) {
  PointerQueue queue;
  std::atomic<std::uint64_t> sum{0};
  std::thread consumer([&] {
    std::uint64_t seen = 0;
    void* p = nullptr;
    while (seen < 100000)
      if (queue.pop(p)) {
        sum += reinterpret_cast<std::uintptr_t>(p);
        ++seen;
      }
  });
  for (std::uintptr_t i = 1; i <= 100000; ++i) queue.push(reinterpret_cast<void*>(i));
  consumer.join();
  EXPECT_EQ(sum.load(), 100000ull * 100001ull / 2);
}

}  // namespace
}  // namespace abench
