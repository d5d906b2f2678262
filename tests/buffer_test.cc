// The buffer model's invariants, over the backend this test binary is linked with
// (built once per backend: harness_test_<backend>).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "harness/black_box.h"
#include "harness/buffer.h"
#include "harness/built_buffer_check.h"
#include "harness/native_allocator.h"
#include "harness/workloads.h"
#include "tests/recording_allocator.h"

namespace abench {
namespace {

using testing::Call;
using Recording = testing::RecordingAllocator<NativeAllocator<>>;

bool aligned(const void* p, std::size_t a) { return opaque(reinterpret_cast<std::uintptr_t>(p)) % a == 0; }

const std::vector<std::size_t> kSizes{1, 7, 64, 100, 4096, 65536};
const std::vector<Alignment> kAlignments{{1, 1}, {1, 16}, {1, 64}, {1, 256}, {4096, 4096}, {8, 1}};

TEST(Buffer, DataIsAlignedAndCapacityFollowsPolicy) {
  for (std::size_t size : kSizes)
    for (const Alignment& a : kAlignments) {
      AlignedBuffer<NativeAllocator<>> exact(NativeAllocator<>{}, size, a, Policy::exact);
      EXPECT_TRUE(aligned(exact.data(), a.effective())) << size << " @" << a.effective();
      EXPECT_EQ(exact.capacity(), size);
      EXPECT_EQ(exact.data(), exact.block());
      EXPECT_GE(NativeAllocator<>{}.usable_size(exact.block()), size);

      AlignedBuffer<NativeAllocator<>> padded(NativeAllocator<>{}, size, a, Policy::padded);
      EXPECT_TRUE(aligned(padded.data(), a.effective())) << size << " @" << a.effective();
      EXPECT_EQ(padded.request_bytes(), size + a.effective());
      // capacity = end of the block - data pointer: depends on the address returned.
      EXPECT_EQ(padded.capacity(), static_cast<std::size_t>(padded.block() + padded.request_bytes() - padded.data()));
      EXPECT_GE(padded.capacity(), size);
      EXPECT_LT(static_cast<std::size_t>(padded.data() - padded.block()), a.effective());
    }
}

TEST(Buffer, ZeroedBufferIsAllZeroWithLengthN) {
  for (Policy policy : {Policy::exact, Policy::padded})
    for (std::size_t size : kSizes) {
      AlignedBuffer<NativeAllocator<>> b(NativeAllocator<>{}, size, {4096, 4096}, policy, Fill::zeroed);
      ASSERT_EQ(b.length(), size);
      for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(b.data()[i], std::byte{0}) << i;
    }
}

// The request sequence of `append` under the exact policy, from the growth rule in
// harness/buffer.h worked by hand: capacities 64 -> 256 (max(128, 128, 256)) -> 512.
TEST(Buffer, ExactAppendRequestsFollowTheGrowthRule) {
  std::vector<Call> calls;
  const auto input = make_input(64);
  {
    AlignedBuffer<Recording> b(Recording{{}, &calls}, 64, {1, 256}, Policy::exact);
    for (int k = 0; k < 8; ++k) b.append(input.data(), 64);
    EXPECT_EQ(b.capacity(), 512u);
  }
  const std::vector<Call> expected{
      {"allocate", 64, 256}, {"grow", 256, 256}, {"grow", 512, 256}, {"deallocate", 512, 256}};
  EXPECT_EQ(calls, expected);
}

// grow at N = 4096: write 4096, reserve 4 * 4096 more: one grow to max(8192, 20480, 256).
TEST(Buffer, ExactGrowRequestsFollowTheGrowthRule) {
  std::vector<Call> calls;
  const auto input = make_input(4096);
  {
    AlignedBuffer<Recording> b(Recording{{}, &calls}, 4096, {4096, 4096}, Policy::exact);
    b.append(input.data(), 4096);
    b.reserve(grow_reserve_bytes(4096));
    EXPECT_EQ(b.capacity(), 20480u);
  }
  const std::vector<Call> expected{{"allocate", 4096, 4096}, {"grow", 20480, 4096}, {"deallocate", 20480, 4096}};
  EXPECT_EQ(calls, expected);
}

// padded asks for capacity + A at alignment 1; its capacities depend on addresses, so
// the expected sequence is derived from the capacities the buffer reported.
TEST(Buffer, PaddedGrowthRequestsCapacityPlusAlignmentAtAlignmentOne) {
  std::vector<Call> calls;
  const std::size_t A = 256;
  const auto input = make_input(64);
  std::vector<Call> expected{{"allocate", 64 + A, 1}};
  {
    AlignedBuffer<Recording> b(Recording{{}, &calls}, 64, {1, A}, Policy::padded);
    for (int k = 0; k < 8; ++k) {
      const std::size_t before = b.capacity();
      b.append(input.data(), 64);
      if (b.length() > before) {
        const std::size_t grown = std::max<std::size_t>({2 * before, b.length(), 256});
        expected.push_back({"grow", grown + A, 1});
        EXPECT_GE(b.capacity(), grown);
      }
      ASSERT_TRUE(aligned(b.data(), A));
    }
    expected.push_back({"deallocate", b.request_bytes(), 1});
  }
  EXPECT_EQ(calls, expected);
}

TEST(Buffer, ContentsSurviveEveryGrowthForBothPolicies) {
  for (Policy policy : {Policy::exact, Policy::padded})
    for (std::size_t size : kSizes)
      for (const Alignment& a : kAlignments) {
        const auto input = make_input(size);
        AlignedBuffer<NativeAllocator<>> b(NativeAllocator<>{}, size, a, policy);
        for (int k = 0; k < kAppendCount; ++k) {
          b.append(input.data(), size);
          ASSERT_TRUE(aligned(b.data(), a.effective()));
        }
        b.reserve(grow_reserve_bytes(size));
        ASSERT_GE(b.capacity(), b.length() + grow_reserve_bytes(size));
        ASSERT_EQ(b.length(), kAppendCount * size);
        for (std::size_t i = 0; i < b.length(); ++i)
          ASSERT_EQ(b.data()[i], input[i % size]) << name_of(policy) << " size " << size << " byte " << i;
      }
}

// The padded policy must move its bytes when a grown block needs a different offset.
// A fake allocator that returns blocks at chosen misalignments forces that case.
struct ShiftingAllocator {
  std::vector<std::vector<std::byte>>* arenas;
  std::size_t* next_shift;
  void* allocate(std::size_t size, std::size_t) const {
    arenas->emplace_back(size + 8192);
    auto* base = arenas->back().data();
    auto address = reinterpret_cast<std::uintptr_t>(base);
    std::byte* block = base + (4096 - address % 4096) + *next_shift;  // page + shift
    *next_shift = (*next_shift + 48) % 256;
    return block;
  }
  void* allocate_zeroed(std::size_t size, std::size_t align) const { return allocate(size, align); }
  void* grow(void* block, std::size_t old_size, std::size_t new_size, std::size_t align) const {
    void* moved = allocate(new_size, align);
    std::memcpy(moved, block, std::min(old_size, new_size));
    return moved;
  }
  void deallocate(void*, std::size_t, std::size_t) const {}
  std::size_t usable_size(const void*) const { return 0; }
};

TEST(Buffer, PaddedGrowthCopesWithAChangedOffset) {
  std::vector<std::vector<std::byte>> arenas;
  arenas.reserve(64);
  std::size_t shift = 16;
  const auto input = make_input(100);
  AlignedBuffer<ShiftingAllocator> b(ShiftingAllocator{&arenas, &shift}, 100, {1, 256}, Policy::padded);
  for (int k = 0; k < 8; ++k) b.append(input.data(), 100);
  ASSERT_EQ(b.length(), 800u);
  EXPECT_TRUE(aligned(b.data(), 256));
  for (std::size_t i = 0; i < 800; ++i) ASSERT_EQ(b.data()[i], input[i % 100]) << i;
}

// A buffer as a workload left it: its bytes, and the length and capacity it claims.
struct BuiltBytes {
  std::vector<std::byte> bytes;
  std::size_t claimed_capacity;
  const std::byte* data() const { return bytes.data(); }
  std::size_t length() const { return bytes.size(); }
  std::size_t capacity() const { return claimed_capacity; }
};

// The check finds the first wrong byte wherever it sits (first chunk, a chunk boundary, the
// last byte), in appended buffers (the input repeated) and zeroed ones, and passes right ones.
TEST(BuiltBufferCheck, NamesTheFirstWrongByteOfAnAppendedOrZeroedBuffer) {
  const std::size_t n = 100;
  const auto input = make_input(n);
  const CellSpec append{3, Workload::append, Policy::exact, n, {1, 1}, 1};
  BuiltBytes appended{{}, kAppendCount * n};
  for (int k = 0; k < kAppendCount; ++k) appended.bytes.insert(appended.bytes.end(), input.begin(), input.end());
  EXPECT_EQ(check_built<Workload::append>(append, input, appended, 2, 1), "");
  for (std::size_t at : {std::size_t{0}, std::size_t{99}, std::size_t{100}, std::size_t{457}, kAppendCount * n - 1}) {
    BuiltBytes wrong = appended;
    wrong.bytes[at] ^= std::byte{0x40};
    EXPECT_EQ(check_built<Workload::append>(append, input, wrong, 2, 1),
              "buffer 2 of append size=100 align=1 exact: contents differ at byte " + std::to_string(at));
  }
  BuiltBytes two_wrong = appended;
  two_wrong.bytes[650] = two_wrong.bytes[320] = std::byte{0};
  EXPECT_NE(check_built<Workload::append>(append, input, two_wrong, 0, 1).find("at byte 320"), std::string::npos);

  const CellSpec zeroed{4, Workload::zeroed, Policy::exact, n, {1, 1}, 1};
  BuiltBytes zeros{std::vector<std::byte>(n), n};
  EXPECT_EQ(check_built<Workload::zeroed>(zeroed, input, zeros, 0, 1), "");
  for (std::size_t at : {std::size_t{0}, std::size_t{51}, n - 1}) {
    BuiltBytes wrong = zeros;
    wrong.bytes[at] = std::byte{1};
    EXPECT_EQ(check_built<Workload::zeroed>(zeroed, input, wrong, 0, 1),
              "buffer 0 of zeroed size=100 align=1 exact: contents differ at byte " + std::to_string(at));
  }
  BuiltBytes sevens{std::vector<std::byte>(n, std::byte{7}), n};  // every byte alike, none zero
  EXPECT_EQ(check_built<Workload::zeroed>(zeroed, input, sevens, 0, 1),
            "buffer 0 of zeroed size=100 align=1 exact: contents differ at byte 0");
  BuiltBytes short_one{std::vector<std::byte>(n - 1), n};
  EXPECT_EQ(check_built<Workload::zeroed>(zeroed, input, short_one, 0, 1),
            "buffer 0 of zeroed size=100 align=1 exact: length 99, expected 100");
}

}  // namespace
}  // namespace abench
