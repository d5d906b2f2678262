// Test helper: results of a compare as the orchestrator would record them, built in memory
// (no worker runs): two builds of the system allocator ("old", "new"), 2 workloads x 2 sizes
// a side, `rounds` processes of 3 samples each. The candidate side runs `ratio` times the
// baseline's figures; processes and samples differ a little so medians are not all equal.
#pragma once

#include "src/run/orchestrator.h"
#include "tests/test_matrix.h"

namespace abench::testing {

inline RunResults synthetic_compare(int rounds = 6, double ratio = 1.0, std::vector<std::size_t> sizes = {64, 4096},
                                    std::vector<std::size_t> lives = {1}) {
  Matrix m = small_matrix({"system"}, rounds, std::move(sizes), std::move(lives));
  m.name = "synthetic";
  m.protocol.interleave_batches = true;
  m.protocol.fresh_process_per_cell = true;
  m.protocol.seed = 7;
  Variant old_build, new_build;
  old_build.name = "old";
  new_build.name = "new";
  RunResults r;
  r.matrix = m;
  r.protocol = m.protocol;
  r.plan = make_compare_plan(m, {old_build}, {new_build}, m.protocol.seed);
  r.started_at = "2026-12-03T07:00:00Z";
  r.finished_at = "2026-12-03T07:01:00Z";
  r.run_id = "00000000000000aa";
  r.command_line = {"abench", "compare", "--baseline", "label=old", "--candidate", "label=new"};
  r.conditions.machine_fingerprint = "test";
  r.conditions.architecture = "x86_64";
  r.complete = true;
  lay_out_cells(r);
  for (CellRecord& cell : r.cells) {
    const double base =
        static_cast<double>(cell.cell.spec.size) / 8 + 10 * static_cast<double>(cell.cell.spec.workload);
    const double scale = cell.cell.variant % 2 == 0 ? 1.0 : ratio;
    for (int p = 0; p < rounds; ++p) {
      ProcessMeasurement m;
      m.round = p;
      m.pid = 1000 + p;
      m.cpu = 1;
      m.seed = 42 + static_cast<std::uint64_t>(p);
      m.iterations = 1000;
      m.warmup_batches = 4;
      m.sample_iterations = {1000, 1010, 1020};
      const double wobble = 1 + 0.001 * ((p * 7 + cell.cell.spec.id) % 5);
      m.sample_ns_per_op = {base * scale * wobble, base * scale * wobble * 1.002, base * scale * wobble * 0.999};
      m.median_ns_per_op = base * scale * wobble;
      cell.processes.push_back(m);
      cell.rounds_done.push_back(p);
    }
  }
  resummarize_all(r);
  return r;
}

}  // namespace abench::testing
