#include "harness/counters.h"

#include <atomic>
#include <cstdint>

namespace abench {
namespace {

AllocationCounters g_counters;
std::atomic<bool> g_counting{false};
thread_local int t_interface_depth = 0;

// Counting runs are never timed, so a spin lock is cheap enough; it makes the counters
// right when another thread allocates or frees (the xthread consumer, a plugin's threads).
std::atomic_flag g_lock = ATOMIC_FLAG_INIT;
struct Locked {
  Locked() {
    while (g_lock.test_and_set(std::memory_order_acquire)) {
    }
  }
  ~Locked() { g_lock.clear(std::memory_order_release); }
};

// Live blocks and their requested sizes, for live and peak bytes. A fixed open-addressing
// table in static storage: the counting layer must not allocate. Counting windows hold a
// few hundred blocks at most; past the table's size, tracking stops and says so.
constexpr std::size_t kTableSize = 1 << 16;
// A slot holds a block of the current counting window only where its window is
// g_window: each start_counting begins a new window, so the table is never cleared.
// Clearing it faulted in every page of it in each counting process (the interposer's
// self-test had used it first): about half the CPU of a trivial cell's counting run.
struct Slot {
  const void* block;
  std::size_t size;
  std::uint32_t window;
};
Slot g_table[kTableSize];
std::uint32_t g_window = 0;
const void* const kTombstone = reinterpret_cast<const void*>(1);

bool empty(const Slot& slot) { return slot.window != g_window || slot.block == nullptr; }

std::size_t slot_of(const void* block) {
  auto h = reinterpret_cast<std::uintptr_t>(block);
  h ^= h >> 17;
  h *= 0xed5ad4bbu;
  return static_cast<std::size_t>(h) & (kTableSize - 1);
}

void track(const void* block, std::size_t size) {
  std::size_t i = slot_of(block);
  for (std::size_t probes = 0; probes < kTableSize; ++probes, i = (i + 1) & (kTableSize - 1)) {
    if (empty(g_table[i]) || g_table[i].block == kTombstone) {
      g_table[i] = {block, size, g_window};
      g_counters.live_bytes += size;
      if (g_counters.live_bytes > g_counters.peak_live_bytes) g_counters.peak_live_bytes = g_counters.live_bytes;
      return;
    }
  }
  g_counters.live_tracking_overflow = true;
}

void untrack(const void* block) {
  std::size_t i = slot_of(block);
  for (std::size_t probes = 0; probes < kTableSize; ++probes, i = (i + 1) & (kTableSize - 1)) {
    if (empty(g_table[i])) return;  // not allocated inside this counting window
    if (g_table[i].block == block) {
      g_counters.live_bytes -= g_table[i].size;
      g_table[i].block = kTombstone;
      return;
    }
  }
}

bool counted(bool interface_call) {
  return g_counting.load(std::memory_order_relaxed) && (interface_call || t_interface_depth == 0);
}

}  // namespace

void start_counting() {
  ++g_window;  // every slot of an earlier window is empty now
  g_counters = AllocationCounters{};
  g_counting = true;
}

void stop_counting() { g_counting = false; }
void resume_counting() { g_counting = true; }
const AllocationCounters& counters() { return g_counters; }
void reset_peak_live_bytes() { g_counters.peak_live_bytes = g_counters.live_bytes; }

void count_request(const void* block, std::size_t size, bool interface_call) {
  if (!counted(interface_call)) return;
  Locked lock;
  ++g_counters.requests;
  g_counters.requested_bytes += size;
  g_counters.last_request_bytes = size;
  if (block != nullptr) {
    g_counters.last_request_block = block;
    track(block, size);
  }
}

void count_resize(std::uintptr_t old_block, const void* new_block, std::size_t new_size, bool interface_call) {
  if (!counted(interface_call)) return;
  Locked lock;
  ++g_counters.requests;
  g_counters.requested_bytes += new_size;
  g_counters.last_request_bytes = new_size;
  if (new_block == nullptr) return;  // failed: the old block is still live
  g_counters.last_request_block = new_block;
  untrack(reinterpret_cast<const void*>(old_block));
  track(new_block, new_size);
}

void count_free(const void* block, bool interface_call) {
  if (block == nullptr || !counted(interface_call)) return;
  Locked lock;
  ++g_counters.frees;
  untrack(block);
}

InterfaceCallScope::InterfaceCallScope() { ++t_interface_depth; }
InterfaceCallScope::~InterfaceCallScope() { --t_interface_depth; }
bool inside_interface_call() { return t_interface_depth > 0; }

}  // namespace abench

namespace abench {
// Overridden by harness/interpose.cc in counting workers.
[[gnu::weak]] bool counting_interposer_active() { return false; }
}  // namespace abench
