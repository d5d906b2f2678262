// --interleave batch: the two sides of a cell alive at once, told when to take each step.
// The fake workers below read their pace channel as a real one does (harness/worker.cc)
// and log every sample as they take it, so the log is the order the CPU saw.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/run/orchestrator.h"
#include "src/run/batch_pacer.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

TEST(BatchPacer, SamplesAlternateInPairsThatTakeTurnsToLead) {
  EXPECT_EQ(BatchPacer::sample_order(3), (std::vector<int>{0, 1, 1, 0, 0, 1}));
  EXPECT_EQ(BatchPacer::sample_order(1), (std::vector<int>{0, 1}));
}

// A line from the pace channel, or "" at its end; "timeout" when nothing came in 5 s.
std::string read_word(int fd) {
  std::string line;
  for (char c = 0;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 5000) <= 0) return "timeout";
    if (read(fd, &c, 1) <= 0) return line;
    if (c == '\n') return line;
    line += c;
  }
}

class FakePacedLauncher : public WorkerLauncher {
 public:
  std::mutex mutex;
  std::condition_variable hello_seen;
  int hellos = 0;
  // Round 1's workers wait (up to 5 s) before their last sample until this many hellos came.
  int hellos_before_round_1_ends = 0;
  std::vector<std::string> started;                // "<start_cpus> <pin_when_told> <cpu>" a worker
  std::vector<std::string> log;                    // "<policy>:<sample>" as each is taken
  std::map<std::string, std::string> warmup_word;  // "<policy> round <r>" -> the word it got
  std::map<std::string, int> crash_at_sample;      // policy -> the sample it dies in (round 1)
  int unpaced = 0;

  LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) override {
    const auto req = nlohmann::json::parse(request.stdin_text).get<WorkerRequest>();
    const CellSpec& cell = req.cells.at(0);
    const std::string side(name_of(cell.policy));
    if (request.pace_fd < 0 || !req.paced) {
      std::lock_guard lock(mutex);
      ++unpaced;
    }
    {
      std::lock_guard lock(mutex);
      started.push_back(fmt::format("{} {} {}", fmt::join(request.start_cpus, ","), req.pin_when_told, req.cpu));
    }
    WorkerHello hello;
    hello.order = {cell.id};
    hello.pid = 100 + cell.id;
    on_line(nlohmann::json(hello).dump());
    {
      std::lock_guard lock(mutex);
      ++hellos;
    }
    hello_seen.notify_all();
    const std::string word = read_word(request.pace_fd);
    std::uint64_t iterations = 100;
    if (word.starts_with("warmup ") && word != "warmup 0") iterations = std::stoull(word.substr(7));
    const int round = [&] {
      std::lock_guard lock(mutex);
      const int r = static_cast<int>(warmup_word.size()) / 2;  // two sides a pair, pairs one after another
      warmup_word[side + " " + std::to_string(cell.id) + " #" + std::to_string(r)] = word;
      return r;
    }();
    on_line(fmt::format(R"({{"type":"warm","id":{},"batch_ns":1000000,"iterations":{},"samples":{}}})", cell.id,
                        iterations, req.sampler.samples));
    for (int s = 0; s < req.sampler.samples; ++s) {
      const std::string go = read_word(request.pace_fd);
      if (go == "timeout") {
        ADD_FAILURE() << side << " waited 5 s for sample " << s;
        LaunchOutcome hung;
        hung.timed_out = true;
        return hung;
      }
      if (round == 0 && s + 1 == req.sampler.samples && hellos_before_round_1_ends > 0) {
        std::unique_lock lock(mutex);
        if (!hello_seen.wait_for(lock, std::chrono::seconds(5), [&] { return hellos >= hellos_before_round_1_ends; }))
          log.push_back("no hello ahead");
      }
      if (round == 0 && crash_at_sample.contains(side) && crash_at_sample[side] == s) {
        LaunchOutcome crashed;
        crashed.signal = 11;
        return crashed;
      }
      {
        std::lock_guard lock(mutex);
        log.push_back(side + ":" + std::to_string(s) + (go.empty() ? " alone" : ""));
      }
      on_line(fmt::format(R"({{"type":"sampled","id":{}}})", cell.id));
    }
    CellReport report{cell.id,    true,      "",
                      iterations, cell.live, 1,
                      true,       {},        std::vector<double>(static_cast<std::size_t>(req.sampler.samples), 10.0),
                      {},         {}};
    on_line(nlohmann::json(report).dump());
    on_line(R"({"type":"done"})");
    {
      std::lock_guard lock(mutex);
      log.push_back(side + " ends");
    }
    LaunchOutcome ok;
    ok.exit_code = 0;
    return ok;
  }
};

RunResults paced_compare(int processes) {
  Matrix m = testing::small_matrix({"system"}, processes, {64}, {1});
  m.workloads = {Workload::allocate};
  m.protocol.fresh_process_per_cell = true;
  m.protocol.interleave_batches = true;
  Variant base, cand;
  base.policy = Policy::padded;
  cand.policy = Policy::exact;
  RunResults r;
  r.matrix = m;
  r.protocol = m.protocol;
  r.plan = make_compare_plan(m, {base}, {cand}, 7);
  return r;
}

OrchestratorHooks quiet_hooks() {
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  return hooks;
}

TEST(PacedPairs, TheTwoSidesOfACellTakeTurnsSampleBySampleAndWarmUpAtOneCount) {
  RunResults results = paced_compare(2);
  FakePacedLauncher launcher;
  run_plan(results, launcher, quiet_hooks());
  EXPECT_EQ(launcher.unpaced, 0);
  // Round 1 padded goes first, round 2 exact (compare alternates the leading side); within
  // a round the samples go first, second, second, first, first, second; the second side's
  // last sample waits until the first side, done, has ended.
  EXPECT_EQ(launcher.log,
            (std::vector<std::string>{"padded:0", "exact:0", "exact:1", "padded:1", "padded:2", "padded ends",
                                      "exact:2 alone", "exact ends", "exact:0", "padded:0", "padded:1", "exact:1",
                                      "exact:2", "exact ends", "padded:2 alone", "padded ends"}));
  // The first side finds the count (its warm-up is told 0), the second warms up at it; in
  // later rounds both are told the count the first round found.
  for (const auto& [who, word] : launcher.warmup_word)
    EXPECT_EQ(word, who.starts_with("padded") && who.ends_with("#0") ? "warmup 0" : "warmup 100") << who;
  for (const CellRecord& cell : results.cells) {
    const CellSummary s = summarize(cell, 2);
    EXPECT_EQ(s.status, CellStatus::ok) << s.error;
    EXPECT_EQ(s.processes, 2);
  }
  ASSERT_EQ(results.workers.size(), 4u);
}

// A pair started ahead starts up while the pair before it is measured (its workers on
// abench's CPUs, told to move to the measured one at their first word), and takes no step
// before that pair has ended.
TEST(PacedPairs, APairStartsUpWhileThePairBeforeItIsMeasuredAndWaitsItsTurn) {
  RunResults results = paced_compare(2);
  FakePacedLauncher launcher;
  launcher.hellos_before_round_1_ends = 4;
  OrchestratorHooks hooks = quiet_hooks();
  hooks.measured_cpu = 1;
  hooks.start_ahead_cpus = {0, 2};
  run_plan(results, launcher, hooks);
  EXPECT_EQ(launcher.log,
            (std::vector<std::string>{"padded:0", "exact:0", "exact:1", "padded:1", "padded:2", "padded ends",
                                      "exact:2 alone", "exact ends", "exact:0", "padded:0", "padded:1", "exact:1",
                                      "exact:2", "exact ends", "padded:2 alone", "padded ends"}));
  EXPECT_EQ(launcher.started, std::vector<std::string>(4, "0,2 true 1"));
  for (const auto& [who, word] : launcher.warmup_word)  // round 2 told the count round 1 found
    EXPECT_EQ(word, who.starts_with("padded") && who.ends_with("#0") ? "warmup 0" : "warmup 100") << who;
  for (const CellRecord& cell : results.cells) EXPECT_EQ(summarize(cell, 2).processes, 2);
}

TEST(BatchPacer, AHeldPairIsToldNothingUntilLetGoAndASideGoneMeanwhileLeavesTheOtherAlone) {
  const auto pending = [](int fd) {
    pollfd p{fd, POLLIN, 0};
    return poll(&p, 1, 0) > 0;
  };
  const std::string hello = R"({"type":"hello"})";
  {
    BatchPacer pacer(3);
    pacer.on_line(0, hello);
    pacer.on_line(1, hello);
    EXPECT_FALSE(pending(pacer.worker_end(0)));
    pacer.let_go(250);
    EXPECT_EQ(read_word(pacer.worker_end(0)), "warmup 250");
    EXPECT_FALSE(pending(pacer.worker_end(1)));
  }
  {
    BatchPacer pacer(3);
    pacer.on_line(1, hello);
    pacer.on_gone(0);                            // never got going
    EXPECT_FALSE(pending(pacer.worker_end(1)));  // not before the CPU is the pair's
    pacer.let_go(0);
    EXPECT_EQ(read_word(pacer.worker_end(1)), "");  // end of channel: it runs alone
  }
}

// A side past its last sample waits for nothing: its allowance runs from its last word, so
// one that hangs on its way out is killed. Were it called waiting, its clock and its
// partner's (which waits for it to end) would both restart for ever: abench itself hung.
TEST(BatchPacer, ASidePastItsLastSampleIsNotWaitingSoItsAllowanceRuns) {
  BatchPacer pacer(1);  // order 0 1: side 0 takes its last sample first
  pacer.let_go(0);
  pacer.on_line(0, R"({"type":"hello"})");
  pacer.on_line(1, R"({"type":"hello"})");
  pacer.on_line(0, R"({"type":"warm","iterations":100})");
  pacer.on_line(1, R"({"type":"warm","iterations":100})");
  ASSERT_EQ(read_word(pacer.worker_end(0)), "warmup 0");
  ASSERT_EQ(read_word(pacer.worker_end(0)), "sample");
  pacer.on_line(0, R"({"type":"sampled"})");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto now = std::chrono::steady_clock::now();
  const auto ms_before_now = [&](int side) {
    return std::chrono::duration<double, std::milli>(now - pacer.clock_start(side)).count();
  };
  EXPECT_GE(ms_before_now(0), 50) << "side 0's allowance restarts while it ends";
  EXPECT_LE(ms_before_now(1), 0) << "side 1 waits for side 0 to end: its allowance waits too";
  pacer.on_gone(0);
  EXPECT_EQ(read_word(pacer.worker_end(1)), "warmup 100");
  EXPECT_EQ(read_word(pacer.worker_end(1)), "");  // its last sample, alone
}

TEST(PacedPairs, ASideThatDiesLetsTheOtherFinishAloneAndFailsOnlyItsOwnCell) {
  RunResults results = paced_compare(2);
  FakePacedLauncher launcher;
  launcher.crash_at_sample["padded"] = 1;  // round 1: padded takes one sample, then dies
  run_plan(results, launcher, quiet_hooks());
  ASSERT_GE(launcher.log.size(), 3u);
  EXPECT_EQ(launcher.log[0], "padded:0");
  EXPECT_EQ(launcher.log[1], "exact:0");
  EXPECT_EQ(launcher.log[2], "exact:1");
  // exact was told to take sample 1; padded died in its own; exact then runs free.
  EXPECT_EQ(launcher.log[3], "exact:2 alone");
  for (const CellRecord& cell : results.cells) {
    const CellSummary s = summarize(cell, 2);
    if (cell.cell.spec.policy == Policy::padded) {
      EXPECT_EQ(s.processes, 1);  // round 2 measured it
      ASSERT_EQ(cell.failures.size(), 1u);
      EXPECT_NE(cell.failures[0].find("killed by signal 11 (SEGV) while running this cell"), std::string::npos)
          << cell.failures[0];
    } else {
      EXPECT_EQ(s.processes, 2) << s.error;
      EXPECT_TRUE(cell.failures.empty());
    }
  }
}

}  // namespace
}  // namespace abench
