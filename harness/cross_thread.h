// The xthread workload: objects allocated on one thread and freed on another, a producer
// and a consumer connected by a bounded single-producer single-consumer queue. The
// consumer is a long-lived thread pinned to a CPU of its own (harness/pinning.h); a batch
// ends when the consumer has freed everything the producer made, so the time covers both
// sides. One operation = one object allocated, handed over and freed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "harness/black_box.h"
#include "harness/layout.h"

namespace abench {

// Head and tail on lines of their own, so the two threads do not share one. Some Arm cores
// (Apple's, Neoverse's prefetcher pairs) move 128 bytes at a time; x86 moves 64.
#if defined(__aarch64__)
inline constexpr std::size_t kCacheLineBytes = 128;
#else
inline constexpr std::size_t kCacheLineBytes = 64;
#endif

// Bounded SPSC ring of pointers. push spins while full, pop returns nullptr when empty.
class PointerQueue {
 public:
  static constexpr std::size_t kCapacity = 1024;  // a power of two

  void push(void* p) {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    while (head - tail_.load(std::memory_order_acquire) == kCapacity) {
    }
    slots_[head & (kCapacity - 1)] = p;
    head_.store(head + 1, std::memory_order_release);
  }

  bool pop(void*& p) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail == head_.load(std::memory_order_acquire)) return false;
    p = slots_[tail & (kCapacity - 1)];
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

 private:
  alignas(kCacheLineBytes) std::atomic<std::size_t> head_{0};
  alignas(kCacheLineBytes) std::atomic<std::size_t> tail_{0};
  alignas(kCacheLineBytes) void* slots_[kCapacity] = {};
};

// The consumer thread and the producer's batch loop over an Allocator.
template <class Allocator>
class CrossThreadRun {
 public:
  // consumer_cpu < 0: leave the consumer unpinned.
  CrossThreadRun(Allocator allocator, std::size_t size, std::size_t align, int consumer_cpu, std::string (*pin)(int))
      : allocator_(allocator), size_(size), align_(align) {
    consumer_ = std::thread([this, consumer_cpu, pin] {
      if (consumer_cpu >= 0) pin_error_ = pin(consumer_cpu);
      consume();
    });
  }
  CrossThreadRun(const CrossThreadRun&) = delete;
  CrossThreadRun& operator=(const CrossThreadRun&) = delete;
  ~CrossThreadRun() {
    stop_.store(true, std::memory_order_release);
    consumer_.join();
  }

  // Allocates `objects` objects, hands each to the consumer, and returns once the
  // consumer has freed them all. Returns false if the allocator failed.
  bool run_batch(std::uint64_t objects) {
    const std::uint64_t target = produced_ + objects;
    std::size_t n = size_;
    do_not_optimize(n);
    for (; produced_ < target; ++produced_) {
      void* p = allocator_.allocate(n, align_);
      if (p == nullptr) [[unlikely]]
        return false;
      do_not_optimize(p);
      queue_.push(p);
    }
    while (freed_.load(std::memory_order_acquire) != produced_) {
    }
    return true;
  }

  std::uint64_t freed() const { return freed_.load(std::memory_order_acquire); }
  const std::string& pin_error() const { return pin_error_; }

 private:
  void consume() {
    void* p = nullptr;
    for (;;) {
      if (queue_.pop(p)) {
        allocator_.deallocate(p, size_, align_);
        freed_.fetch_add(1, std::memory_order_release);
      } else if (stop_.load(std::memory_order_acquire)) {
        return;
      }
    }
  }

  [[no_unique_address]] Allocator allocator_;
  std::size_t size_, align_;
  PointerQueue queue_;
  std::uint64_t produced_ = 0;
  std::atomic<std::uint64_t> freed_{0};
  std::atomic<bool> stop_{false};
  std::string pin_error_;
  std::thread consumer_;
};

}  // namespace abench
