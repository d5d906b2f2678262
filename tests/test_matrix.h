// Test helper: a small in-memory matrix (no file), two workloads x sizes x live counts.
#pragma once

#include "src/plan/matrix.h"

namespace abench::testing {

inline Matrix small_matrix(std::vector<std::string> backends, int processes, std::vector<std::size_t> sizes = {64},
                           std::vector<std::size_t> lives = {1, 64}) {
  Matrix m;
  m.path = "test.json";
  m.backends = std::move(backends);
  m.policies = {Policy::exact};
  m.workloads = {Workload::allocate, Workload::grow};
  m.sizes = std::move(sizes);
  m.alignments = {{1, 256}};
  m.lives = std::move(lives);
  m.protocol.processes = processes;
  m.protocol.samples = 3;
  m.protocol.counts = false;
  return m;
}

}  // namespace abench::testing
