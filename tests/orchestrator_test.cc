// Orchestration with a fake worker launcher: no process is started, nothing is timed.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "src/run/counting_pause.h"
#include "src/run/launch_frame.h"
#include "src/run/launch_request.h"
#include "src/run/orchestrator.h"
#include "src/results/results_writers.h"
#include "tests/fake_launcher.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

using testing::FakeLauncher;

RunResults make_results(std::vector<std::string> backends, int processes) {
  const Matrix m = testing::small_matrix(std::move(backends), processes, {64, 4096}, {1});
  RunResults r;
  r.matrix = m;
  r.protocol = m.protocol;
  r.plan = make_plan(m, 99);
  return r;
}

// Results whose plan has a counting run for every cell.
RunResults counted_results(std::vector<std::string> backends, int processes) {
  RunResults r = make_results(std::move(backends), processes);
  r.protocol.counts = true;
  Matrix m = r.matrix;
  m.protocol.counts = true;
  r.plan = make_plan(m, 1);
  return r;
}

OrchestratorHooks hooks_counting(int& updates) {
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  hooks.on_update = [&updates](const RunResults&) { ++updates; };
  return hooks;
}

TEST(Orchestrator, RunsEveryJobInPlanOrderAndAggregatesMedianOfMedians) {
  RunResults results = make_results({"system", "mimalloc"}, 3);
  FakeLauncher launcher;
  // Process medians differ by round: 10, 20, 30 (x 1.1 for the middle sample).
  int launches = 0;
  launcher.ns_of = [&](const std::string&, int) { return 10.0 * (1 + (launches - 1) / 2); };
  int updates = 0;
  OrchestratorHooks hooks = hooks_counting(updates);
  hooks.worker_path = [&](const Variant& v, WorkerMode) {
    ++launches;
    return v.backend;
  };
  run_plan(results, launcher, hooks);

  EXPECT_EQ(launcher.launched,
            (std::vector<std::string>{"system", "mimalloc", "mimalloc", "system", "system", "mimalloc"}));
  for (const CellRecord& cell : results.cells) {
    const CellSummary s = summarize(cell, 3);
    EXPECT_EQ(s.status, CellStatus::ok);
    EXPECT_EQ(s.processes, 3);
    EXPECT_DOUBLE_EQ(*s.ns_per_op, 22.0);
    EXPECT_DOUBLE_EQ(*s.process_min_ns, 11.0);
    EXPECT_DOUBLE_EQ(*s.process_max_ns, 33.0);
    EXPECT_TRUE(s.unstable);  // 33 / 11 > 1.5
    EXPECT_EQ(s.samples, 3);
  }
  // Results go to disk after every cell, not only at the end.
  EXPECT_GE(updates, static_cast<int>(results.cells.size() * 3));
}

TEST(Orchestrator, ACrashFailsOnlyTheCellItWasRunningAndAFreshWorkerRunsTheRest) {
  RunResults results = make_results({"system", "mimalloc"}, 2);
  FakeLauncher launcher;
  launcher.crash_after[1] = 1;  // the first mimalloc process dies in its second cell
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));

  // The four planned processes and one continuation of the crashed one.
  ASSERT_EQ(launcher.launched.size(), 5u);
  const auto& first_order = results.workers[1].hello->order;
  ASSERT_EQ(first_order.size(), 4u);
  const WorkerRequest& continuation = launcher.requests[2];
  ASSERT_EQ(continuation.cells.size(), 2u);
  EXPECT_EQ(continuation.cells[0].id, first_order[2]);  // in the crashed worker's order,
  EXPECT_EQ(continuation.cells[1].id, first_order[3]);
  EXPECT_EQ(continuation.order, CellOrder::matrix);  // not reshuffled
  EXPECT_EQ(continuation.seed, launcher.requests[1].seed);
  EXPECT_EQ(results.workers[2].job.round, results.workers[1].job.round);
  for (const CellRecord& cell : results.cells) {
    const CellSummary s = summarize(cell, 2);
    if (cell.cell.spec.id == first_order[1]) {
      EXPECT_EQ(s.status, CellStatus::failed);
      EXPECT_NE(s.error.find("killed by signal 11 (SEGV) while running this cell"), std::string::npos) << s.error;
      EXPECT_NE(s.error.find("Segmentation fault in fake allocator"), std::string::npos) << s.error;
      EXPECT_EQ(s.processes, 1);  // the second round still measured it
    } else {
      EXPECT_EQ(s.status, CellStatus::ok) << s.error;
      EXPECT_EQ(s.processes, 2);
    }
  }
  const std::string csv = results_to_csv(results);
  EXPECT_NE(csv.find(",failed,"), std::string::npos);
}

// A worker whose hello names one cell twice, then dies: each cell fails once and the run
// ends (the blamed cell was once also "not reached", and every fresh worker failed it anew).
TEST(Orchestrator, AHelloThatNamesACellTwiceCannotMakeContinuationsWithoutEnd) {
  class RepeatingHello : public WorkerLauncher {
   public:
    int launches = 0;
    LaunchOutcome run(const LaunchRequest&, const ProtocolLineHandler& on_line) override {
      ++launches;
      on_line(R"({"type":"hello","backend":"system","allocator_version":"x","malloc_object":"x","pinned_cpu":-1,)"
              R"("pid":1,"order":[1,1]})");
      LaunchOutcome outcome;
      outcome.started = true;
      outcome.exit_code = 1;
      return outcome;
    }
  } launcher;
  RunResults results = make_results({"system"}, 1);
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));
  EXPECT_LE(launcher.launches, static_cast<int>(results.cells.size()));
  for (const CellRecord& cell : results.cells) EXPECT_EQ(cell.failures.size(), 1u) << cell.cell.spec.id;
}

TEST(Orchestrator, AWorkerThatDiesInEveryCellFailsEachCellOnceAndStops) {
  RunResults results = make_results({"system"}, 1);
  FakeLauncher launcher;
  for (std::size_t i = 0; i < 10; ++i) launcher.crash_after[i] = 0;
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));
  EXPECT_EQ(launcher.launched.size(), results.cells.size());  // one process per cell, then done
  for (const CellRecord& cell : results.cells) {
    ASSERT_EQ(cell.failures.size(), 1u);
    EXPECT_NE(cell.failures[0].find("while running this cell"), std::string::npos) << cell.failures[0];
  }
}

TEST(Orchestrator, AHungWorkerIsGivenSecondsFromItsCellsExpectedTime) {
  RunResults results = make_results({"system"}, 1);
  results.protocol.min_batch_ms = 25;
  results.protocol.samples = 11;
  struct Recorder : WorkerLauncher {
    std::vector<double> allowances;
    double first = 0;
    LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) override {
      first = request.timeout_s;
      const auto req = nlohmann::json::parse(request.stdin_text).get<WorkerRequest>();
      WorkerHello hello;
      for (const auto& c : req.cells) hello.order.push_back(c.id);
      allowances.push_back(on_line(nlohmann::json(hello).dump()));
      // A warm-up that fixed a 30 ms batch, 11 samples to go.
      allowances.push_back(on_line(R"({"type":"warm","id":0,"batch_ns":30000000,"samples":11})"));
      LaunchOutcome hung;
      hung.timed_out = true;
      hung.timeout_s = allowances.back();
      hung.signal = 9;
      return hung;
    }
  } launcher;
  int updates = 0;
  OrchestratorHooks hooks = hooks_counting(updates);
  run_plan(results, launcher, hooks);
  EXPECT_EQ(launcher.first, 30);
  ASSERT_GE(launcher.allowances.size(), 2u);
  EXPECT_DOUBLE_EQ(launcher.allowances[0], 5 + 10 * 4 * 0.025);   // warm-up: about 4 batches, x10
  EXPECT_DOUBLE_EQ(launcher.allowances[1], 5 + 10 * 11 * 0.030);  // the samples, x10
  const std::string& failure =
      results.cells[static_cast<std::size_t>(results.workers[0].hello->order[0])].failures.at(0);
  EXPECT_NE(failure.find("hung: no report within 8.3 s, killed while running this cell"), std::string::npos) << failure;
}

// Found by the protocol fuzz target: a launcher's raw bytes (not UTF-8) in a failure text
// made results.json unwritable.
TEST(Orchestrator, BytesThatAreNotUtf8NeverReachTheResultsFile) {
  RunResults results = make_results({"system"}, 1);
  struct RawBytes : WorkerLauncher {
    LaunchOutcome run(const LaunchRequest&, const ProtocolLineHandler& on_line) override {
      on_line("not json \xff\xfe");
      LaunchOutcome o;
      o.signal = 11;
      o.stderr_tail = "crashed \x80\xc3";
      o.stdout_tail = "\xed\xa0\x80 surrogate";
      return o;
    }
  } launcher;
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));
  const std::string json = results_to_json(results).dump(2, ' ', false, nlohmann::json::error_handler_t::strict);
  EXPECT_NE(json.find("crashed \\\\x80\\\\xc3"), std::string::npos) << json.substr(0, 2000);
  EXPECT_NO_THROW((void)results_to_csv(results));
}

TEST(Orchestrator, RequestCarriesTheProtocolAndTheJobSeed) {
  RunResults results = make_results({"system"}, 2);
  results.protocol.min_batch_ms = 7;
  results.protocol.touch = true;
  results.protocol.order = CellOrder::matrix;
  FakeLauncher launcher;
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));
  ASSERT_EQ(launcher.requests.size(), 2u);
  EXPECT_EQ(launcher.requests[0].sampler.min_batch_ns, 7'000'000u);
  EXPECT_EQ(launcher.requests[0].sampler.samples, 3);
  EXPECT_TRUE(launcher.requests[0].touch);
  EXPECT_EQ(launcher.requests[0].order, CellOrder::matrix);
  EXPECT_EQ(launcher.requests[0].seed, results.plan.jobs[0].seed);
  EXPECT_NE(launcher.requests[0].seed, launcher.requests[1].seed);
  EXPECT_EQ(launcher.requests[0].cells.size(), 4u);
}

TEST(Orchestrator, CountsComeFromCountingWorkersAndAreCheckedAgainstTheGrowthRule) {
  RunResults results = counted_results({"system"}, 1);
  FakeLauncher launcher;
  std::vector<WorkerMode> modes;
  OrchestratorHooks hooks;
  hooks.worker_path = [&](const Variant& v, WorkerMode mode) {
    modes.push_back(mode);
    return v.backend;
  };
  run_plan(results, launcher, hooks);
  ASSERT_EQ(modes.size(), 4u + 1u);  // one counting process per cell, then one timed process
  EXPECT_EQ(launcher.requests[0].mode, WorkerMode::count);
  EXPECT_EQ(launcher.requests[4].mode, WorkerMode::time);
  for (const CellRecord& cell : results.cells) {
    ASSERT_TRUE(cell.counts.has_value());
    EXPECT_EQ(summarize(cell, 1).count_check, "ok");
  }

  // A worker that makes 2 requests per buffer where the growth rule allows 1 is flagged.
  RunResults again = results;
  FakeLauncher doubled;
  doubled.requests_per_buffer = 2;
  run_plan(again, doubled, hooks);
  for (const CellRecord& cell : again.cells)
    EXPECT_EQ(summarize(cell, 1).count_check, "mismatch: 2..2 requests per buffer, the workload must make 1..1");
  EXPECT_NE(results_to_table(again).find("COUNTS mismatch"), std::string::npos);
}

// With a counting CPU, counting runs go in a lane of their own beside the timed workers,
// pinned to that CPU; every cell still gets its counts and its timing.
TEST(Orchestrator, CountingRunsGoBesideTheTimedOnesOnTheirOwnCpu) {
  RunResults results = counted_results({"system", "mimalloc"}, 2);
  results.protocol.cpu = 1;
  FakeLauncher launcher;
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  hooks.counting_cpu = 0;
  std::size_t updates = 0;
  hooks.on_update = [&](const RunResults&) { ++updates; };
  run_plan(results, launcher, hooks);
  std::size_t counting = 0, timed = 0;
  for (const WorkerRequest& r : launcher.requests) {
    if (r.mode == WorkerMode::count) {
      ++counting;
      EXPECT_EQ(r.cpu, 0);
    } else {
      ++timed;
      EXPECT_EQ(r.cpu, 1);
    }
  }
  EXPECT_EQ(counting, results.cells.size());
  EXPECT_EQ(timed, 2u * 2u);  // two variants, two rounds
  EXPECT_EQ(results.workers.size(), counting + timed);
  for (const CellRecord& cell : results.cells) {
    ASSERT_TRUE(cell.counts.has_value()) << cell_label(cell.cell.spec);
    EXPECT_TRUE(cell.counting_done);
    EXPECT_EQ(cell.processes.size(), 2u);
  }
  EXPECT_GT(updates, counting);
}

// Beside the timed rounds, a counting run is stopped while a timed worker takes its samples
// and goes on after (real child processes, src/run/counting_pause.h): no timed worker finds
// one running in its samples, and every cell still gets its counts.
TEST(Orchestrator, ACountingRunBesideIsStoppedWhileATimedWorkerSamples) {
  if (!CountingPause::supported()) GTEST_SKIP() << "no pidfds here: counting runs go first";
  RunResults results = counted_results({"system", "mimalloc"}, 2);
  results.protocol.cpu = 1;
  FakeLauncher launcher;
  launcher.counting_children = true;
  launcher.count_run_takes = std::chrono::milliseconds(60);
  launcher.warm_up_takes = std::chrono::milliseconds(20);
  launcher.sampling_takes = std::chrono::milliseconds(40);
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  hooks.counting_cpu = 0;
  run_plan(results, launcher, hooks);
  EXPECT_EQ(launcher.samples_beside_a_running_count, 0);
  EXPECT_GT(launcher.samples_beside_a_stopped_count, 0) << "no counting run met a timed worker's samples";
  for (const CellRecord& cell : results.cells) {
    ASSERT_TRUE(cell.counts.has_value()) << cell_label(cell.cell.spec);
    EXPECT_EQ(cell.processes.size(), 2u);
  }
}

// Counting runs that go first run side by side, one a CPU, and all of them end before the
// first timed worker starts: nothing is timed while they run.
TEST(Orchestrator, CountingRunsFirstGoSideBySideOneACpuBeforeAnyTimedWorker) {
  RunResults results = counted_results({"system", "mimalloc"}, 2);
  results.protocol.cpu = 1;
  FakeLauncher launcher;
  launcher.count_run_takes = std::chrono::milliseconds(40);  // long enough for the lanes to overlap
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  hooks.counting_first_cpus = {1, 0};
  run_plan(results, launcher, hooks);
  EXPECT_EQ(launcher.most_in_flight, 2);
  std::set<int> counting_cpus;
  bool timed_seen = false;
  std::size_t counting = 0;
  for (const WorkerRequest& r : launcher.requests) {
    if (r.mode == WorkerMode::time) {
      timed_seen = true;
      EXPECT_EQ(r.cpu, 1);
      continue;
    }
    EXPECT_FALSE(timed_seen) << "a counting run after a timed worker";
    counting_cpus.insert(r.cpu);
    ++counting;
  }
  EXPECT_EQ(counting_cpus, (std::set<int>{0, 1}));
  EXPECT_EQ(counting, results.cells.size());
  for (const CellRecord& cell : results.cells) {
    ASSERT_TRUE(cell.counts.has_value()) << cell_label(cell.cell.spec);
    EXPECT_EQ(cell.processes.size(), 2u);
  }

  // One CPU: one at a time, as before.
  RunResults alone = results;
  lay_out_cells(alone);
  FakeLauncher one;
  one.count_run_takes = std::chrono::milliseconds(5);
  hooks.counting_first_cpus = {1};
  run_plan(alone, one, hooks);
  EXPECT_EQ(one.most_in_flight, 1);
}

TEST(Orchestrator, ACountingWorkerThatFailsTakesOnlyTheCountsNeverTheTiming) {
  RunResults results = counted_results({"system"}, 1);
  FakeLauncher launcher;
  launcher.counting_fatal = "the counting interposer saw 0 requests and 1 frees for one strdup";
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  run_plan(results, launcher, hooks);
  for (const CellRecord& cell : results.cells) {
    EXPECT_FALSE(cell.counts.has_value());
    EXPECT_TRUE(cell.failures.empty());
    const CellSummary s = summarize(cell, 1);
    EXPECT_EQ(s.status, CellStatus::ok);
    ASSERT_TRUE(s.ns_per_op.has_value());
    EXPECT_TRUE(s.count_check.starts_with("unavailable: counting worker")) << s.count_check;
    EXPECT_NE(s.count_check.find("0 requests and 1 frees for one strdup"), std::string::npos) << s.count_check;
  }
  const nlohmann::json j = results_to_json(results);
  EXPECT_EQ(j.at("cells").at(0).at("status"), "ok");
  EXPECT_TRUE(j.at("cells").at(0).at("counts").is_null());
  EXPECT_NE(j.at("cells").at(0).at("counts_unavailable").get<std::string>().find("strdup"), std::string::npos);
}

TEST(Orchestrator, SubNanosecondAllocatingCellIsFlaggedAsElided) {
  RunResults results = make_results({"system"}, 1);
  FakeLauncher launcher;
  launcher.ns_of = [](const std::string&, int) { return 0.2; };
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));
  for (const CellRecord& cell : results.cells) EXPECT_TRUE(summarize(cell, 1).elision_suspected);
  EXPECT_NE(results_to_csv(results).find(",true,"), std::string::npos);
}

TEST(Orchestrator, AWorkerThatCannotStartFailsItsCells) {
  RunResults results = make_results({"system"}, 1);
  struct NoStart : WorkerLauncher {
    LaunchOutcome run(const LaunchRequest&, const ProtocolLineHandler&) override {
      LaunchOutcome o;
      o.started = false;
      o.start_error = "abench-worker-system: No such file or directory";
      return o;
    }
  } launcher;
  int updates = 0;
  run_plan(results, launcher, hooks_counting(updates));
  for (const CellRecord& cell : results.cells) {
    const CellSummary s = summarize(cell, 1);
    EXPECT_EQ(s.status, CellStatus::failed);
    EXPECT_NE(s.error.find("No such file or directory"), std::string::npos) << s.error;
    EXPECT_FALSE(s.ns_per_op.has_value());
  }
}

// A worker whose start hangs (no hello within its allowance; under qemu-user a spawn now and
// then deadlocks before its exec) began no cell: one fresh worker runs them all. A second
// hang at the start fails them, with what happened, and nothing is started a third time.
TEST(Orchestrator, AWorkerSilentFromItsStartIsStartedOnceMoreAndFailsItsCellsOnlyIfThatHangsToo) {
  struct SilentAtFirst : testing::FakeLauncher {
    int silent_starts = 0;
    int launches = 0;
    LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) override {
      if (launches++ < silent_starts) {
        LaunchOutcome hung;
        hung.timed_out = true;
        hung.timeout_s = 30;
        hung.signal = 9;
        return hung;
      }
      return FakeLauncher::run(request, on_line);
    }
  };
  for (const int silent : {1, 2}) {
    RunResults results = make_results({"system"}, 1);
    SilentAtFirst launcher;
    launcher.silent_starts = silent;
    int updates = 0;
    run_plan(results, launcher, hooks_counting(updates));
    EXPECT_EQ(launcher.launches, 2) << silent;
    ASSERT_EQ(results.workers.size(), 2u);
    EXPECT_EQ(describe(results.workers[0].outcome), "hung: no report within 30 s, killed");  // kept as evidence
    EXPECT_TRUE(results.workers[1].job.continuation);
    EXPECT_EQ(results.workers[1].job.cell_ids.size(), results.cells.size());
    for (const CellRecord& cell : results.cells) {
      const CellSummary s = summarize(cell, 1);
      if (silent == 1) {
        EXPECT_EQ(s.status, CellStatus::ok) << s.error;
        EXPECT_EQ(s.processes, 1);
      } else {
        EXPECT_EQ(s.status, CellStatus::failed);
        EXPECT_NE(s.error.find("hung: no report within 30 s, killed before reporting this cell"), std::string::npos)
            << s.error;
      }
    }
  }
}

}  // namespace
}  // namespace abench

namespace abench {
namespace {

// The backend table's deterministic setting reaches instructions-mode workers, under
// callgrind, unless the variant sets that variable itself; timed workers never get it.
TEST(LaunchRequest, InstructionsModeSetsTheBackendsDeterministicSettingUnlessTheVariantDoes) {
  Matrix m = testing::small_matrix({"jemalloc"}, 1, {64}, {1});
  m.protocol.measure = Measure::instructions;
  RunResults results;
  results.matrix = m;
  results.protocol = m.protocol;
  Variant own;
  own.backend = "jemalloc";
  own.env = {{"MALLOC_CONF", "narenas:1"}};
  Variant plain;
  plain.backend = "jemalloc";
  results.plan = make_variant_plan(m, {plain, own}, 1);
  lay_out_cells(results);
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return "abench-worker-" + v.backend; };
  hooks.valgrind = "/usr/bin/valgrind";
  auto conf_of = [&](const Job& job) {
    const LaunchRequest r = make_launch_request(results, job, hooks);
    std::vector<std::string> values;
    for (const auto& [name, value] : r.environment)
      if (name == "MALLOC_CONF") values.push_back(value);
    return std::make_pair(r.executable, values);
  };
  int timed = 0;
  for (const Job& job : results.plan.jobs) {
    if (job.mode != WorkerMode::time) continue;
    ++timed;
    const auto [executable, confs] = conf_of(job);
    EXPECT_EQ(executable, "/usr/bin/valgrind");
    const bool sets_its_own = results.plan.variants[job.variant].env.size() == 1;
    EXPECT_EQ(confs, sets_its_own ? std::vector<std::string>{"narenas:1"}
                                  : std::vector<std::string>{"dirty_decay_ms:-1,muzzy_decay_ms:-1"});
  }
  EXPECT_EQ(timed, 2);
  results.protocol.measure = Measure::time;
  for (const Job& job : results.plan.jobs) {
    if (job.mode == WorkerMode::time && results.plan.variants[job.variant].env.empty()) {
      EXPECT_TRUE(conf_of(job).second.empty());
    }
  }
}

// What --layout asks of a launch reaches it: the run's frame for every worker, addresses
// fixed unless the kernel's layout is asked for, and for the timed workers of a drawn layout
// the round's shift and a fresh copy; counting runs shift and copy nothing.
TEST(LaunchRequest, TheLayoutReachesEveryLaunch) {
  Matrix m = testing::small_matrix({"system"}, 6, {64}, {1});
  m.protocol.seed = 7;
  m.protocol.counts = true;
  RunResults results;
  results.matrix = m;
  results.protocol = m.protocol;
  Variant v;
  v.backend = "system";
  results.plan = make_variant_plan(m, {v}, 7);
  lay_out_cells(results);
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant&, WorkerMode) { return std::string("abench-worker-system"); };
  hooks.frame = {8192, 40};
  hooks.fresh_copy_dir = "/tmp/abench-workers-test";
  ASSERT_EQ(results.protocol.layout, LayoutMode::drawn);
  std::set<int> shifts;
  int timed = 0, counted = 0;
  for (const Job& job : results.plan.jobs) {
    const LaunchRequest r = make_launch_request(results, job, hooks);
    EXPECT_EQ(r.frame.strings_bytes, 8192u);
    EXPECT_TRUE(r.fixed_addresses);
    if (job.mode == WorkerMode::time) {
      ++timed;
      EXPECT_EQ(r.fresh_copy_dir, hooks.fresh_copy_dir);
      EXPECT_EQ(r.stack_shift, layout_for(results.protocol, job.round, job.mode)->stack_shift);
      shifts.insert(r.stack_shift);
    } else {
      ++counted;
      EXPECT_TRUE(r.fresh_copy_dir.empty());
      EXPECT_EQ(r.stack_shift, 0);
    }
  }
  EXPECT_GT(timed, 1);
  EXPECT_GT(counted, 0);
  EXPECT_GT(shifts.size(), 1u) << "each round draws its own";
  results.protocol.layout = LayoutMode::kernel;
  const LaunchRequest kernel = make_launch_request(results, results.plan.jobs.back(), hooks);
  EXPECT_FALSE(kernel.fixed_addresses);
  EXPECT_TRUE(kernel.fresh_copy_dir.empty());
  EXPECT_EQ(kernel.stack_shift, 0);
  EXPECT_EQ(kernel.frame.strings_bytes, 8192u) << "the frame whatever the layout";
}

}  // namespace
}  // namespace abench
