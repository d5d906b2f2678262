// The worker side of a cell, over the backend this binary is linked with: identity,
// verification, contract checks, sampling, cell order.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <vector>
#include <set>

#include "allocators/backends.h"
#include "allocators/backend.h"
#include "harness/black_box.h"
#include "harness/cell_runner.h"
#include "harness/checked_allocator.h"
#include "harness/native_allocator.h"
#include "harness/worker.h"
#include "harness/working_set.h"

namespace abench {
namespace {

TEST(Backend, ServesMallocInThisProcess) {
  const backend::Identity id = backend::identify();
  EXPECT_EQ(id.name, ABENCH_TEST_BACKEND);
  EXPECT_TRUE(id.serves_malloc) << id.problem;
  EXPECT_FALSE(id.version.empty());
}

const EntrySet kDefaultEntry = entry_sets_of(ABENCH_TEST_BACKEND).front();

// Every entry-point set the backend offers keeps the contract of allocators/backend.h.
TEST(Backend, HonoursTheContractAcrossSizesAndAlignmentsThroughEveryEntrySet) {
  for (EntrySet set : entry_sets_of(ABENCH_TEST_BACKEND))
    with_native_allocator(set, [&](auto allocator) {
      SCOPED_TRACE(std::string("entry set ") + std::string(name_of(set)));
      for (std::size_t align : {1, 8, 16, 32, 64, 256, 4096, 65536})
        for (std::size_t size : {1, 24, 64, 4096, 65536, 1 << 20}) {
          auto* block = static_cast<unsigned char*>(allocator.allocate(size, align));
          ASSERT_NE(block, nullptr);
          EXPECT_EQ(opaque(reinterpret_cast<std::uintptr_t>(block)) % align, 0u) << size << "@" << align;
          EXPECT_GE(allocator.usable_size(block), size);
          for (std::size_t i = 0; i < size; ++i) block[i] = static_cast<unsigned char>(i * 7);
          auto* grown = static_cast<unsigned char*>(allocator.grow(block, size, 3 * size, align));
          ASSERT_NE(grown, nullptr);
          EXPECT_EQ(opaque(reinterpret_cast<std::uintptr_t>(grown)) % align, 0u);
          for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(grown[i], static_cast<unsigned char>(i * 7));
          allocator.deallocate(grown, 3 * size, align);

          auto* zeroed = static_cast<unsigned char*>(allocator.allocate_zeroed(size, align));
          ASSERT_NE(zeroed, nullptr);
          for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(zeroed[i], 0);
          allocator.deallocate(zeroed, size, align);
        }
    });
}

TEST(Backend, NamesTheCallsOfEveryEntrySet) {
  for (EntrySet set : entry_sets_of(ABENCH_TEST_BACKEND)) EXPECT_FALSE(entry_calls(set).empty());
}

std::vector<CellSpec> default_matrix_cells() {
  std::vector<CellSpec> cells;
  int id = 0;
  for (Policy p : {Policy::exact, Policy::padded})
    for (Workload w : {Workload::allocate, Workload::zeroed, Workload::grow, Workload::append, Workload::noop})
      for (std::size_t size : {64, 4096, 65536})
        for (Alignment a : {Alignment{1, 256}, Alignment{4096, 4096}})
          for (std::size_t live : {1, 64}) cells.push_back({id++, w, p, size, a, live});
  return cells;
}

// True when `set`'s allocate(size, align), called here directly, returns a misaligned
// block: the allocator's fault, not the harness's.
bool allocator_misaligns(EntrySet set, std::size_t size, std::size_t align) {
  return with_native_allocator(set, [&](auto allocator) {
    bool misaligned = false;
    std::vector<void*> blocks;
    for (int i = 0; i < 16; ++i) {
      blocks.push_back(allocator.allocate(size, align));
      misaligned |= opaque(reinterpret_cast<std::uintptr_t>(blocks.back())) % align != 0;
    }
    for (void* block : blocks) allocator.deallocate(block, size, align);
    return misaligned;
  });
}

// Every default cell verifies through the default set. Through the others, the only
// failure allowed is a misaligned block that the test reproduces with the allocator's own
// call (Debian 12's mimalloc 2.0.9: posix_memalign(256, 256) returns 128-aligned blocks).
TEST(CellRunner, EveryDefaultCellPassesVerificationThroughEveryEntrySet) {
  for (EntrySet set : entry_sets_of(ABENCH_TEST_BACKEND))
    for (const CellSpec& cell : default_matrix_cells()) {
      const std::string problem = verify_cell(cell, ABENCH_TEST_BACKEND, nullptr, set);
      if (problem.empty()) continue;
      std::size_t size = 0, align = 0;
      const std::size_t call = problem.find("(size=");
      const bool misaligned = set != kDefaultEntry && problem.find("is not aligned to") != std::string::npos &&
                              call != std::string::npos &&
                              std::sscanf(problem.c_str() + call, "(size=%zu, align=%zu)", &size, &align) == 2;
      EXPECT_TRUE(misaligned && allocator_misaligns(set, size, align))
          << name_of(set) << " " << name_of(cell.workload) << " " << cell.size << ": " << problem;
    }
}

TEST(CellRunner, AllocatorWorkloadsVerifyAtEverySizeAndAlignment) {
  int id = 0;
  for (Workload w : {Workload::pair, Workload::batch, Workload::batch_reverse})
    for (std::size_t size : {16, 32, 64, 256, 1024, 4096, 65536})
      for (Alignment a : {Alignment{1, 1}, Alignment{1, 64}, Alignment{4096, 4096}})
        EXPECT_EQ(verify_cell({id++, w, Policy::exact, size, a, 64}, ABENCH_TEST_BACKEND, nullptr, kDefaultEntry), "")
            << name_of(w) << " " << size << " @" << a.effective();
}

TEST(CellRunner, CrossThreadObjectsAreAllFreedByTheOtherThread) {
  for (std::size_t size : {16, 4096})
    EXPECT_EQ(verify_cell({0, Workload::xthread, Policy::exact, size, {1, 64}, 1}, ABENCH_TEST_BACKEND, nullptr,
                          kDefaultEntry),
              "")
        << size;
  SamplerConfig sampler;
  sampler.min_batch_ns = 200'000;
  sampler.samples = 3;
  const CellReport r = run_cell({1, Workload::xthread, Policy::exact, 64, {1, 1}, 1}, sampler, false,
                                ABENCH_TEST_BACKEND, nullptr, Measure::time, kDefaultEntry);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.sample_ns_per_op.size(), 3u);
  for (double ns : r.sample_ns_per_op) EXPECT_GT(ns, 1.0);
}

TEST(CellRunner, WorkingSetBuildsChecksAndReleasesEveryObject) {
  EXPECT_EQ(verify_cell({0, Workload::workingset, Policy::exact, 1024, {1, 1}, 1000}, ABENCH_TEST_BACKEND, nullptr,
                        kDefaultEntry),
            "");
  EXPECT_EQ(verify_cell({1, Workload::workingset, Policy::exact, 64, {1, 64}, 100}, ABENCH_TEST_BACKEND, nullptr,
                        kDefaultEntry),
            "");
  SamplerConfig sampler;
  sampler.min_batch_ns = 200'000;
  sampler.samples = 2;
  const CellReport r = run_cell({2, Workload::workingset, Policy::exact, 256, {1, 1}, 500}, sampler, false,
                                ABENCH_TEST_BACKEND, nullptr, Measure::time, kDefaultEntry);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.ops_per_iteration, 500u);
}

TEST(WorkingSetSizes, AreFixedBySeedAndWithinEightToN) {
  const auto a = working_set_sizes(1000, 1024), b = working_set_sizes(1000, 1024);
  EXPECT_EQ(a, b);
  for (std::size_t s : a) {
    EXPECT_GE(s, 8u);
    EXPECT_LE(s, 1024u);
    EXPECT_EQ(s % 8, 0u);
  }
  EXPECT_LT(*std::min_element(a.begin(), a.end()), 32u);  // log-uniform: small sizes are common
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 512u);
}

TEST(CellRunner, MeasuresTheRequestedNumberOfSamples) {
  SamplerConfig sampler;
  sampler.min_batch_ns = 200'000;
  sampler.samples = 4;
  const CellReport r = run_cell({7, Workload::append, Policy::exact, 64, {1, 256}, 4}, sampler, true,
                                ABENCH_TEST_BACKEND, nullptr, Measure::time, kDefaultEntry);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(r.sample_ns_per_op.size(), 4u);
  EXPECT_EQ(r.ops_per_iteration, 4u);
  EXPECT_GE(r.iterations, 1u);
  for (double ns : r.sample_ns_per_op) EXPECT_GT(ns, 1.0);  // 3 allocations cannot take < 1 ns
}

// An allocator that breaks its contract: blocks 8 bytes off the alignment asked for.
struct MisaligningAllocator {
  static inline int released = 0;
  void* allocate(std::size_t size, std::size_t align) const {
    return static_cast<char*>(NativeAllocator<>{}.allocate(size + align + 8, align)) + 8;
  }
  void* allocate_zeroed(std::size_t size, std::size_t align) const { return allocate(size, align); }
  void* grow(void*, std::size_t, std::size_t, std::size_t) const { return nullptr; }
  void deallocate(void* block, std::size_t size, std::size_t align) const {
    ++released;
    NativeAllocator<>{}.deallocate(static_cast<char*>(block) - 8, size + align + 8, align);
  }
  std::size_t usable_size(const void*) const { return 1 << 30; }
};

TEST(CheckedAllocator, ReportsAMisalignedBlockWithTheEvidence) {
  CheckedAllocator<MisaligningAllocator> checked(MisaligningAllocator{}, "broken");
  try {
    checked.allocate(64, 256);
    FAIL() << "misaligned block accepted";
  } catch (const ContractViolation& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("broken"), std::string::npos) << what;
    EXPECT_NE(what.find("allocate(size=64, align=256)"), std::string::npos) << what;
    EXPECT_NE(what.find("not aligned to 256"), std::string::npos) << what;
    EXPECT_NE(what.find("0x"), std::string::npos) << what;
  }
  EXPECT_EQ(MisaligningAllocator::released, 1);  // the rejected block went back, not leaked
}

// An allocator whose grow loses the contents.
struct ForgetfulAllocator : NativeAllocator<> {
  void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) const {
    deallocate(block, 0, align);
    return allocate_zeroed(new_size, align);
  }
};

TEST(CheckedAllocator, ReportsContentsLostOnGrowth) {
  CheckedAllocator<ForgetfulAllocator> checked(ForgetfulAllocator{}, "forgetful");
  auto* block = static_cast<unsigned char*>(checked.allocate(64, 16));
  for (int i = 0; i < 64; ++i) block[i] = 0xAB;
  EXPECT_THROW(checked.grow(block, 64, 256, 16), ContractViolation);
}

TEST(CellOrder, ShuffleIsAPermutationFixedByTheSeed) {
  WorkerRequest request;
  for (int id = 0; id < 48; ++id) request.cells.push_back({id, Workload::allocate, Policy::exact, 64, {}, 1});
  request.seed = 42;
  const auto first = cell_order(request);
  EXPECT_EQ(first, cell_order(request));
  EXPECT_EQ(std::set<int>(first.begin(), first.end()).size(), 48u);
  request.seed = 43;
  EXPECT_NE(first, cell_order(request));
  request.order = CellOrder::matrix;
  const auto in_order = cell_order(request);
  for (int id = 0; id < 48; ++id) EXPECT_EQ(in_order[static_cast<std::size_t>(id)], id);
}

}  // namespace
}  // namespace abench
