// The workingset workload: a mixed working set built, then released, as arena authors
// compare an arena with a general-purpose allocator.
//   sizes    L object sizes drawn once, before timing, log-uniformly from [8, N] and rounded
//            up to a multiple of 8, by mt19937_64 seeded with kWorkingSetSeed (so every run
//            and every backend builds the same set);
//   objects  every 4th object has a non-trivial destructor (it reads its object and adds
//            to a checksum), the others are trivially destructible;
//   release  the destructors run, then an allocator that can release everything at once
//            (the arena backend) does so in one call; any other frees object by object.
// One operation = one object built and released.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "harness/black_box.h"
#include "harness/buffer.h"

namespace abench {

inline constexpr std::uint64_t kWorkingSetSeed = 0x5eed;
inline constexpr std::size_t kTrackedEvery = 4;

inline std::vector<std::size_t> working_set_sizes(std::size_t objects, std::size_t max_size) {
  std::mt19937_64 random(kWorkingSetSeed);
  const double lo = std::log(8.0), hi = std::log(static_cast<double>(std::max<std::size_t>(max_size, 8)));
  std::vector<std::size_t> sizes;
  for (std::size_t i = 0; i < objects; ++i) {
    const double u = static_cast<double>(random() >> 11) / 9007199254740992.0;  // [0, 1), 53 bits
    const auto size = static_cast<std::size_t>(std::exp(lo + u * (hi - lo)));
    sizes.push_back(std::min((size + 7) & ~std::size_t{7}, (std::max<std::size_t>(max_size, 8) + 7) & ~std::size_t{7}));
  }
  return sizes;
}

template <class Allocator>
class WorkingSet {
 public:
  WorkingSet(Allocator allocator, std::size_t max_size, std::size_t objects, std::size_t align)
      : allocator_(allocator), align_(align), sizes_(working_set_sizes(objects, max_size)), blocks_(objects) {}

  // Builds and releases the set `iterations` times. False if the allocator failed.
  bool run(std::uint64_t iterations) {
    for (std::uint64_t it = 0; it < iterations; ++it) {
      if (!build()) return false;
      release();
    }
    return true;
  }

  // Builds once, checks every object, releases; "" or what was wrong.
  std::string verify() {
    if (!build()) return "allocator returned nullptr";
    std::string problem;
    for (std::size_t i = 0; i < blocks_.size() && problem.empty(); ++i) {
      if (reinterpret_cast<std::uintptr_t>(blocks_[i]) % align_ != 0)
        problem = "object " + std::to_string(i) + " misaligned";
      if (static_cast<unsigned char>(blocks_[i][0]) != (i & 0xff) ||
          static_cast<unsigned char>(blocks_[i][sizes_[i] - 1]) != (i & 0xff))
        problem = "object " + std::to_string(i) + " lost its contents";
    }
    const std::uint64_t before = destructors_run_;
    release();
    const std::uint64_t tracked = (blocks_.size() + kTrackedEvery - 1) / kTrackedEvery;
    if (problem.empty() && destructors_run_ - before != tracked)
      problem =
          std::to_string(destructors_run_ - before) + " destructors ran for " + std::to_string(tracked) + " objects";
    return problem;
  }

  std::size_t objects() const { return sizes_.size(); }

 private:
  bool build() {
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      std::size_t n = sizes_[i];
      do_not_optimize(n);
      auto* p = static_cast<std::byte*>(allocator_.allocate(n, align_));
      if (p == nullptr) [[unlikely]]
        return false;
      p[0] = p[n - 1] = static_cast<std::byte>(i & 0xff);  // construct: first and last byte
      blocks_[i] = p;
    }
    clobber_memory();
    return true;
  }

  void release() {
    for (std::size_t i = 0; i < blocks_.size(); i += kTrackedEvery) {  // the non-trivial destructors
      checksum_ += static_cast<unsigned char>(blocks_[i][0]);
      ++destructors_run_;
    }
    do_not_optimize(checksum_);
    if constexpr (requires { allocator_.release_all(); }) {
      if (allocator_.release_all()) return;
    }
    for (std::size_t i = 0; i < blocks_.size(); ++i) allocator_.deallocate(blocks_[i], sizes_[i], align_);
  }

  [[no_unique_address]] Allocator allocator_;
  std::size_t align_;
  std::vector<std::size_t> sizes_;
  std::vector<std::byte*> blocks_;
  std::uint64_t checksum_ = 0, destructors_run_ = 0;
};

}  // namespace abench
