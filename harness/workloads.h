// The workloads. One operation is one buffer (or block) lifetime, including its drop:
//   allocate  construct a buffer with capacity N
//   zeroed    construct N zeroed bytes
//   grow      construct capacity N, write N bytes, reserve 4 * max(N, 4096) more
//   append    construct capacity N, append the same N-byte input 8 times
//   noop      the loop and barriers alone: the harness's own cost per operation
//   pair      allocate N bytes from the allocator, then free them at once: the short-lived
//             object (with L > 1, L pairs one after another)
//   batch     B = L allocations of N bytes, then B frees in allocation order
//   batch-reverse  the same, freed in reverse order
//   xthread   allocated on this thread, freed on another (harness/cross_thread.h); it has
//             a loop of its own, not run_iterations
// With live count L, an iteration builds L buffers, keeps them all live, then drops
// them all; figures are per buffer. Inputs and the slots are allocated by the caller,
// outside the timed region.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <unistd.h>

#include "harness/black_box.h"
#include "harness/buffer.h"
#include "harness/layout.h"

namespace abench {

inline constexpr int kAppendCount = 8;
// One byte a page: the kernel's page, which Arm kernels make 4, 16 or 64 KiB.
inline const std::size_t kTouchStride = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
inline std::size_t grow_reserve_bytes(std::size_t n) { return 4 * std::max<std::size_t>(n, 4096); }

// A raw block from the allocator, shaped like a buffer for the workload loops: asked for
// (N, A) with the allocator's aligned entry point where A needs it, given back with the
// sized, aligned free where the allocator has one.
template <class Allocator>
class RawBlock {
 public:
  RawBlock(Allocator allocator, std::size_t size, Alignment alignment, Policy, Fill fill)
      : allocator_(allocator), size_(size), align_(alignment.effective()) {
    block_ = static_cast<std::byte*>(fill == Fill::zeroed ? allocator_.allocate_zeroed(size_, align_)
                                                          : allocator_.allocate(size_, align_));
    if (block_ == nullptr) [[unlikely]]
      throw AllocationFailed();
  }
  RawBlock(const RawBlock&) = delete;
  RawBlock& operator=(const RawBlock&) = delete;
  ~RawBlock() { allocator_.deallocate(block_, size_, align_); }

  std::byte* data() { return block_; }
  const std::byte* data() const { return block_; }
  const std::byte* block() const { return block_; }
  std::size_t length() const { return 0; }
  std::size_t capacity() const { return size_; }

 private:
  [[no_unique_address]] Allocator allocator_;
  std::byte* block_;
  std::size_t size_;
  std::size_t align_;
};

// What the timed loop needs to build the built-in buffer model (or raw blocks) over an
// Allocator (NativeAllocator, CheckedAllocator, CountingAllocator, a plugin's allocator).
// A context names its Buffer type and constructs one in place; harness/plugin.h has the
// context for a plugin's own buffer.
template <class Allocator, template <class> class BufferOf = AlignedBuffer>
struct WorkloadContext {
  using Buffer = BufferOf<Allocator>;
  Allocator allocator;
  Policy policy;
  std::size_t size;
  Alignment alignment;
  std::size_t live;
  bool touch;
  const std::byte* input;  // `size` bytes

  void construct(Buffer* slot, std::size_t n, Fill fill) const {
    std::construct_at(slot, allocator, n, alignment, policy, fill);
  }
};

// The context workload W runs in: raw blocks for the allocator workloads.
template <Workload W, class Allocator>
using ContextFor = std::conditional_t<is_raw_workload(W), WorkloadContext<Allocator, RawBlock>,
                                      WorkloadContext<Allocator, AlignedBuffer>>;

// Uninitialized storage for L buffers, reused by every iteration.
template <class Buffer>
class BufferSlots {
 public:
  explicit BufferSlots(std::size_t count) : storage_(count) {}
  Buffer* at(std::size_t i) { return reinterpret_cast<Buffer*>(storage_[i].bytes); }
  // The same storage as an array of block pointers: raw batches keep nothing else.
  std::byte** pointers() {
    static_assert(sizeof(Slot) >= sizeof(std::byte*) && alignof(Slot) >= alignof(std::byte*));
    return reinterpret_cast<std::byte**>(storage_.data());
  }

 private:
  struct alignas(Buffer) Slot {
    std::byte bytes[sizeof(Buffer)];
  };
  std::vector<Slot> storage_;
};

template <Workload W, class Context>
inline void build_buffer(typename Context::Buffer* slot, const Context& c) {
  if constexpr (W == Workload::noop) {
    hide(slot);  // the loop alone: the floor every workload stands on
  } else {
    // The size and input are hidden, so no request is folded to a constant, but not as
    // memory: the barrier costs no instruction (the values go to the allocator anyway).
    std::size_t n = c.size;
    const std::byte* input = c.input;
    hide(n);
    hide(input);
    if constexpr (W == Workload::zeroed) {
      c.construct(slot, n, Fill::zeroed);
    } else {
      c.construct(slot, n, Fill::none);
      if constexpr (W == Workload::grow) {
        slot->append(input, n);
        slot->reserve(grow_reserve_bytes(n));
      } else if constexpr (W == Workload::append) {
        for (int k = 0; k < kAppendCount; ++k) slot->append(input, n);
      }
    }
    // The block escapes through memory: the allocation cannot be deleted.
    std::byte* data = slot->data();
    do_not_optimize(data);
  }
}

template <Workload W, class Buffer>
inline void drop_buffer(Buffer* slot) {
  if constexpr (W == Workload::noop) {
    hide(slot);
  } else {
    std::destroy_at(slot);
  }
}

// One malloc + free (the pair workload), written as the user's program writes it: the block
// a local, its pointer escaping in a register. No barrier here clobbers memory (nothing was
// written that must be observed), so the block's fields and the context's stay in registers:
// a block in BufferSlots was stored and reloaded around each barrier, a store-to-load forward
// between every malloc and its free.
// Always inlined: GCC left one of the eight unrolled copies as a call at live 1.
template <class Context, class Slots>
[[gnu::always_inline]] inline void make_one_pair(const Context& c, Slots& slots) {
  using Buffer = typename Context::Buffer;
  if constexpr (std::is_constructible_v<Buffer, decltype(c.allocator), std::size_t, Alignment, Policy, Fill>) {
    std::size_t n = c.size;
    hide(n);
    Buffer block(c.allocator, n, c.alignment, c.policy, Fill::none);
    escape(block.data());
  } else {  // a plugin's own buffer (never a raw workload's): built where buffers are
    build_buffer<Workload::pair>(slots.at(0), c);
    clobber_memory();
    drop_buffer<Workload::pair>(slots.at(0));
  }
}

// Reads one byte a page of what was built, so lazily zeroed or lazily mapped memory
// pays its first-touch cost inside the timed region (--touch).
template <class Buffer>
inline void touch_pages(const Buffer& buffer) {
  unsigned sum = 0;
  const std::byte* data = buffer.data();
  for (std::size_t offset = 0; offset < buffer.capacity(); offset += kTouchStride)
    sum += static_cast<unsigned>(data[offset]);
  do_not_optimize(sum);
}

// Calls f(i) for i in [0, count): a runtime count's loop unrolled by 8, a constant one
// (std::integral_constant) written out whole. A loop iteration costs at least a cycle for
// its taken branch, which would be most of the harness's floor (noop) and a part of every
// cell; unrolled, the loop itself costs a fraction of a cycle an operation. The
// allocator's calls are the same.
template <class Count, class F>
inline void repeat_indexed(Count count, F&& f) {
  if constexpr (std::is_same_v<Count, std::size_t>) {
#pragma GCC unroll 8
    for (std::size_t i = 0; i < count; ++i) f(i);
  } else {
    [&]<std::size_t... I>(std::index_sequence<I...>) { (f(I), ...); }
    (std::make_index_sequence<Count::value>{});
  }
}

// --touch on a raw block: one byte a page read. Out of line: GCC, flattening the loops around
// it, found the sum's barrier an impossible constraint.
[[gnu::noinline]] inline void touch_bytes(const std::byte* data, std::size_t size) {
  unsigned sum = 0;
  for (std::size_t offset = 0; offset < size; offset += kTouchStride) sum += static_cast<unsigned>(data[offset]);
  do_not_optimize(sum);
}

template <class Buffer>
inline constexpr bool is_raw_block = false;
template <class Allocator>
inline constexpr bool is_raw_block<RawBlock<Allocator>> = true;

// batch and batch-reverse on raw blocks, as the C loop a user writes them: the pointers alone in
// an array, the size and alignment in registers across each block's barrier. (Built as
// RawBlocks, each slot kept its size and alignment beside the pointer, stored and read back, and
// the context's fields were read again after every barrier: docs/measurement.md.)
template <Workload W, class Context, class Live>
[[gnu::always_inline]] inline void run_raw_batch(const Context& c, std::byte** blocks, Live live) {
  auto allocator = c.allocator;
  const std::size_t size = c.size, align = c.alignment.effective();
  repeat_indexed(live, [&](std::size_t i) {
    std::size_t n = size;
    hide(n);
    std::byte* block = static_cast<std::byte*>(allocator.allocate(n, align));
    if (block == nullptr) [[unlikely]]
      throw AllocationFailed();
    blocks[i] = block;
    do_not_optimize(block);  // escapes through memory, as the C loop's block does
  });
  if (c.touch)
    for (std::size_t i = 0; i < live; ++i) touch_bytes(blocks[i], size);
  repeat_indexed(live, [&](std::size_t i) {
    allocator.deallocate(blocks[W == Workload::batch_reverse ? live - 1 - i : i], size, align);
  });
}

// One iteration of the timed loop: `live` buffers built, all live at once, then all dropped
// (pair: each dropped at once). Live is std::size_t, or std::integral_constant for a live
// count known when compiling: then no trip-count arithmetic and no branch.
template <Workload W, class Context, class Slots, class Live>
inline void run_one_iteration(const Context& c, Slots& slots, Live live) {
  if constexpr (W == Workload::pair) {  // each block freed at once: never two live
    repeat_indexed(live, [&](std::size_t) { make_one_pair(c, slots); });
    return;
  }
  if constexpr ((W == Workload::batch || W == Workload::batch_reverse) && is_raw_block<typename Context::Buffer>) {
    run_raw_batch<W>(c, slots.pointers(), live);
    return;
  }
  repeat_indexed(live, [&](std::size_t i) { build_buffer<W>(slots.at(i), c); });
  if constexpr (W != Workload::noop) {
    if (c.touch)
      for (std::size_t i = 0; i < live; ++i) touch_pages(*slots.at(i));
  }
  clobber_memory();
  if constexpr (W == Workload::batch_reverse) {
    repeat_indexed(live, [&](std::size_t i) { drop_buffer<W>(slots.at(live - 1 - i)); });
  } else {
    repeat_indexed(live, [&](std::size_t i) { drop_buffer<W>(slots.at(i)); });
  }
}

// The outer loop at a live count known when compiling: iterations go kUnroll at a time, so
// that at least 8 operations share one loop branch (docs/decisions.md, "The outer loop's
// unrolling").
// The context is a local copy: where no barrier clobbers memory (pair), its fields stay in
// registers instead of being read again after every call into the allocator. Flattened:
// every call but the allocator's is inlined, where GCC otherwise inlines some of the unrolled
// iterations and calls the others out of line (docs/measurement.md, "What the harness adds").
template <Workload W, std::size_t L, class Context>
[[gnu::flatten]] void run_iterations_of(const Context& context, BufferSlots<typename Context::Buffer>& slots,
                                        std::uint64_t iterations) {
  constexpr std::integral_constant<std::size_t, L> live{};
  constexpr std::integral_constant<std::size_t, L >= 8 ? 1 : 8 / L> unroll{};
  const Context c = context;
  std::uint64_t it = 0;
  for (; it + unroll <= iterations; it += unroll)
    repeat_indexed(unroll, [&](std::size_t) { run_one_iteration<W>(c, slots, live); });
  for (; it < iterations; ++it) run_one_iteration<W>(c, slots, live);
}

// The outer loop at a live count known only when running (above 8): the same, with a local
// copy of the context, flattened; its inner loops over the blocks amortize the branch.
template <Workload W, class Context>
[[gnu::flatten]] void run_iterations_at_any_live(const Context& context, BufferSlots<typename Context::Buffer>& slots,
                                                 std::uint64_t iterations) {
  const Context c = context;
  const std::size_t live = c.live;
  for (std::uint64_t it = 0; it < iterations; ++it) run_one_iteration<W>(c, slots, live);
}

// The timed loop. Kept small on purpose: only the workload's operations live here. Live
// counts up to 8 (the default matrix's 1, the pair matrix's 1 to 8) are compiled one by
// one; larger ones share the runtime loop. Not itself flattened: inlining the loops into
// the dispatch made the pair's own code 36 instructions an operation where flattening the
// loops makes it 8 to 9.
template <Workload W, class Context>
void run_iterations(const Context& c, BufferSlots<typename Context::Buffer>& slots, std::uint64_t iterations) {
  switch (c.live) {
    case 1: return run_iterations_of<W, 1>(c, slots, iterations);
    case 2: return run_iterations_of<W, 2>(c, slots, iterations);
    case 4: return run_iterations_of<W, 4>(c, slots, iterations);
    case 8: return run_iterations_of<W, 8>(c, slots, iterations);
    default: return run_iterations_at_any_live<W>(c, slots, iterations);
  }
}

// Calls f(std::integral_constant<Workload, W>{}) for the runtime workload w, so loops
// are compiled once per workload and dispatched once per batch.
template <class F>
decltype(auto) with_workload(Workload w, F&& f) {
  switch (w) {
    case Workload::allocate: return f(std::integral_constant<Workload, Workload::allocate>{});
    case Workload::zeroed: return f(std::integral_constant<Workload, Workload::zeroed>{});
    case Workload::grow: return f(std::integral_constant<Workload, Workload::grow>{});
    case Workload::append: return f(std::integral_constant<Workload, Workload::append>{});
    case Workload::pair: return f(std::integral_constant<Workload, Workload::pair>{});
    case Workload::batch: return f(std::integral_constant<Workload, Workload::batch>{});
    case Workload::batch_reverse: return f(std::integral_constant<Workload, Workload::batch_reverse>{});
    case Workload::xthread: return f(std::integral_constant<Workload, Workload::xthread>{});
    case Workload::workingset: return f(std::integral_constant<Workload, Workload::workingset>{});
    case Workload::noop: break;
  }
  return f(std::integral_constant<Workload, Workload::noop>{});
}

// The length and minimum capacity a workload's buffer must have when built.
struct ExpectedBuffer {
  std::size_t length;
  std::size_t min_capacity;
};

inline ExpectedBuffer expected_buffer(Workload w, std::size_t n) {
  switch (w) {
    case Workload::allocate: return {0, n};
    case Workload::zeroed: return {n, n};
    case Workload::grow: return {n, n + grow_reserve_bytes(n)};
    case Workload::append: return {kAppendCount * n, kAppendCount * n};
    case Workload::pair:
    case Workload::batch:
    case Workload::batch_reverse:
    case Workload::xthread:
    case Workload::workingset: return {0, n};
    case Workload::noop: break;
  }
  return {0, 0};
}

// Requests one buffer lifetime must make, by the growth rule. exact is one number; padded
// is a range, as its capacity exceeds what it asked for by 1 to A bytes depending on the
// address: the most slack gives the fewest growths, the least slack the most.
struct RequestRange {
  std::uint64_t min, max;
};

inline RequestRange expected_requests(Workload w, Policy policy, std::size_t n, std::size_t align) {
  if (w == Workload::noop) return {0, 0};
  if (is_raw_workload(w) || w == Workload::xthread || w == Workload::workingset) return {1, 1};
  std::vector<std::size_t> lengths;  // the lengths the workload requires, in order
  if (w == Workload::grow) lengths = {n, n + grow_reserve_bytes(n)};
  if (w == Workload::append)
    for (int k = 1; k <= kAppendCount; ++k) lengths.push_back(static_cast<std::size_t>(k) * n);
  auto requests_with_slack = [&](std::size_t slack) {
    std::uint64_t requests = 1;
    std::size_t capacity = n + slack;
    for (std::size_t length : lengths)
      if (length > capacity) {
        capacity = grown_capacity(capacity, length) + slack;
        ++requests;
      }
    return requests;
  };
  if (policy == Policy::exact) return {requests_with_slack(0), requests_with_slack(0)};
  return {requests_with_slack(align), requests_with_slack(1)};
}

// Deterministic, non-zero input bytes, so contents checks can tell them from zeroes.
inline std::vector<std::byte> make_input(std::size_t n) {
  std::vector<std::byte> input(n);
  for (std::size_t i = 0; i < n; ++i) input[i] = static_cast<std::byte>(1 + (i * 131) % 251);
  return input;
}

}  // namespace abench
