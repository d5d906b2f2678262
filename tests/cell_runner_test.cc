// The worker side of a cell, over the backend this binary is linked with: identity,
// verification, contract checks, sampling, cell order.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "allocators/backend.h"
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

TEST(Backend, HonoursTheContractAcrossSizesAndAlignments) {
  for (std::size_t align : {1, 8, 16, 32, 64, 256, 4096, 65536})
    for (std::size_t size : {1, 24, 64, 4096, 65536, 1 << 20}) {
      auto* block = static_cast<unsigned char*>(backend::allocate(size, align));
      ASSERT_NE(block, nullptr);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % align, 0u) << size << "@" << align;
      EXPECT_GE(backend::usable_size(block), size);
      for (std::size_t i = 0; i < size; ++i) block[i] = static_cast<unsigned char>(i * 7);
      auto* grown = static_cast<unsigned char*>(backend::grow(block, size, 3 * size, align));
      ASSERT_NE(grown, nullptr);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(grown) % align, 0u);
      for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(grown[i], static_cast<unsigned char>(i * 7));
      backend::deallocate(grown, 3 * size, align);

      auto* zeroed = static_cast<unsigned char*>(backend::allocate_zeroed(size, align));
      ASSERT_NE(zeroed, nullptr);
      for (std::size_t i = 0; i < size; ++i) ASSERT_EQ(zeroed[i], 0);
      backend::deallocate(zeroed, size, align);
    }
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

TEST(CellRunner, EveryDefaultCellPassesVerification) {
  for (const CellSpec& cell : default_matrix_cells())
    EXPECT_EQ(verify_cell(cell, ABENCH_TEST_BACKEND), "") << name_of(cell.workload) << " " << cell.size;
}

TEST(CellRunner, AllocatorWorkloadsVerifyAtEverySizeAndAlignment) {
  int id = 0;
  for (Workload w : {Workload::pair, Workload::batch, Workload::batch_reverse})
    for (std::size_t size : {16, 32, 64, 256, 1024, 4096, 65536})
      for (Alignment a : {Alignment{1, 1}, Alignment{1, 64}, Alignment{4096, 4096}})
        EXPECT_EQ(verify_cell({id++, w, Policy::exact, size, a, 64}, ABENCH_TEST_BACKEND), "")
            << name_of(w) << " " << size << " @" << a.effective();
}

TEST(CellRunner, CrossThreadObjectsAreAllFreedByTheOtherThread) {
  for (std::size_t size : {16, 4096})
    EXPECT_EQ(verify_cell({0, Workload::xthread, Policy::exact, size, {1, 64}, 1}, ABENCH_TEST_BACKEND), "") << size;
  SamplerConfig sampler;
  sampler.min_batch_ns = 200'000;
  sampler.samples = 3;
  const CellReport r = run_cell({1, Workload::xthread, Policy::exact, 64, {1, 1}, 1}, sampler, false, ABENCH_TEST_BACKEND);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.sample_ns_per_op.size(), 3u);
  for (double ns : r.sample_ns_per_op) EXPECT_GT(ns, 1.0);
}

TEST(CellRunner, WorkingSetBuildsChecksAndReleasesEveryObject) {
  EXPECT_EQ(verify_cell({0, Workload::workingset, Policy::exact, 1024, {1, 1}, 1000}, ABENCH_TEST_BACKEND), "");
  EXPECT_EQ(verify_cell({1, Workload::workingset, Policy::exact, 64, {1, 64}, 100}, ABENCH_TEST_BACKEND), "");
  SamplerConfig sampler;
  sampler.min_batch_ns = 200'000;
  sampler.samples = 2;
  const CellReport r = run_cell({2, Workload::workingset, Policy::exact, 256, {1, 1}, 500}, sampler, false,
                                ABENCH_TEST_BACKEND);
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
                                ABENCH_TEST_BACKEND);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.id, 7);
  EXPECT_EQ(r.sample_ns_per_op.size(), 4u);
  EXPECT_EQ(r.ops_per_iteration, 4u);
  EXPECT_GE(r.iterations, 1u);
  for (double ns : r.sample_ns_per_op) EXPECT_GT(ns, 1.0);  // 3 allocations cannot take < 1 ns
}

// An allocator that breaks its contract: blocks 8 bytes off the alignment asked for.
struct MisaligningAllocator {
  void* allocate(std::size_t size, std::size_t align) const {
    return static_cast<char*>(backend::allocate(size + align + 8, align)) + 8;
  }
  void* allocate_zeroed(std::size_t size, std::size_t align) const { return allocate(size, align); }
  void* grow(void*, std::size_t, std::size_t, std::size_t) const { return nullptr; }
  void deallocate(void* block, std::size_t size, std::size_t align) const {
    backend::deallocate(static_cast<char*>(block) - 8, size + align + 8, align);
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
}

// An allocator whose grow loses the contents.
struct ForgetfulAllocator : NativeAllocator {
  void* grow(void* block, std::size_t, std::size_t new_size, std::size_t align) const {
    backend::deallocate(block, 0, align);
    return backend::allocate_zeroed(new_size, align);
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
