// The history store (src/store/history_store.h), each test on a real SQLite file in a
// temporary directory and on a real PostgreSQL database of a throwaway cluster: what a run
// records, a schema from a newer abench, writers at once, rebuild's one transaction; and the
// commit a run is recorded with.
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/store/history_changes.h"
#include "src/store/history_series.h"
#include "src/store/history_store.h"
#include "src/util/errors.h"
#include "tests/postgres_cluster.h"
#include "tests/synthetic_results.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

RunResults run_numbered(int n) {
  RunResults run = testing::synthetic_compare(3);
  run.run_id = fmt::format("{:016x}", n + 1);
  return run;
}

// One store a test: a SQLite file, or a database of its own in the suite's cluster.
class Stores : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() {
    if (!cluster_) cluster_ = new testing::PostgresCluster();  // one for the suite, stopped at exit
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  std::string store() {
    if (GetParam() == "sqlite") return (dir_.path() / "history.db").string();
    const std::string name = fmt::format("t{}", ++databases_);
    connect_to_store(cluster_->url())->run("CREATE DATABASE " + name, {});
    return cluster_->url(name);
  }
  testing::TempDir dir_;
  static inline testing::PostgresCluster* cluster_ = nullptr;
  static inline int databases_ = 0;
};

std::int64_t measured_cells(const RunResults& run) {
  std::int64_t n = 0;
  for (const CellRecord& cell : run.cells) n += cell.summary.ns_per_op ? 1 : 0;
  return n;
}

TEST_P(Stores, ARunIsRecordedOnceWithEveryMeasuredCellAndItsProcessFigures) {
  const std::string path = store();
  const RunResults run = run_numbered(0);
  HistoryStore store(path);
  EXPECT_TRUE(store.record(run, {"c01", "main", "results/a", ""}));
  EXPECT_FALSE(store.record(run, {"c01", "main", "results/a", ""})) << "the same run_id twice";
  EXPECT_EQ(store.run_count(), 1);
  ASSERT_GT(measured_cells(run), 0);
  EXPECT_EQ(store.point_count(), measured_cells(run));
  const auto rows = store.connection().run(
      "SELECT r.commit_rev, p.variant, p.figure, p.process_figures FROM points p JOIN runs r USING (run_key) "
      "WHERE p.variant = 'new' AND p.size = 4096 AND p.workload = 'allocate'",
      {});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(rows[0][0]), "c01");
  const CellRecord* cell = nullptr;
  for (const CellRecord& c : run.cells)
    if (run.plan.variants[c.cell.variant].label() == "new" && c.cell.spec.size == 4096 &&
        c.cell.spec.workload == Workload::allocate)
      cell = &c;
  ASSERT_NE(cell, nullptr);
  EXPECT_DOUBLE_EQ(std::get<double>(rows[0][2]), *cell->summary.ns_per_op);
  EXPECT_EQ(nlohmann::json::parse(std::get<std::string>(rows[0][3])).size(), cell->processes.size());
}

TEST_P(Stores, ASchemaFromANewerAbenchIsRefusedAndLeftAsItWas) {
  const std::string path = store();
  { HistoryStore store(path); }
  { HistoryStore(path).connection().run("UPDATE abench_schema SET version = 99", {}); }
  try {
    HistoryStore store(path);
    ADD_FAILURE() << "a version 99 store was opened";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("its schema is version 99, from a newer abench"), std::string::npos)
        << e.what();
  }
}

// Processes recording into one store at once (two on a SQLite file, four on a PostgreSQL
// database): each waits for the others' transactions, none loses a point.
TEST_P(Stores, ProcessesWritingOneStoreAtOnceKeepEveryPoint) {
  const std::string path = store();
  { HistoryStore store(path); }
  constexpr int kRunsEach = 12;
  const int writer_count = GetParam() == "sqlite" ? 2 : 4;
  std::vector<pid_t> writers;
  for (int w = 0; w < writer_count; ++w) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        HistoryStore store(path);
        for (int i = 0; i < kRunsEach; ++i) store.record(run_numbered(w * kRunsEach + i), {"c", "", "dir", ""});
        _exit(0);
      } catch (...) {
        _exit(1);
      }
    }
    writers.push_back(pid);
  }
  for (pid_t pid : writers) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  HistoryStore store(path);
  EXPECT_EQ(store.run_count(), writer_count * kRunsEach);
  EXPECT_EQ(store.point_count(), writer_count * kRunsEach * measured_cells(run_numbered(0)));
}

TEST_P(Stores, ARebuildThatFailsLeavesTheStoreAsItWas) {
  HistoryStore history(store());
  history.record(run_numbered(0), {"c01", "", "a", ""});
  int given = 0;
  EXPECT_THROW(history.rebuild([&](RunResults& run, RunIdentity& id) {
    if (given++ == 1) throw UsageError("a directory without its history.json");
    run = run_numbered(5);
    id = {"c05", "", "b", ""};
    return true;
  }),
               UsageError);
  EXPECT_EQ(history.run_count(), 1);
  EXPECT_EQ(std::get<std::string>(history.connection().run("SELECT commit_rev FROM runs", {})[0][0]), "c01");
}

// 24 runs with commits c01..c24; from c13 on the variant "new" does 6% more work in its
// allocate cells (noise of 1% between runs, as on this machine): its allocate cells change
// at c13, nothing else does, and the same after the store is rebuilt from the same runs.
TEST_P(Stores, AStepAtC13IsFoundInTheCellsItTouchesAndNowhereElse) {
  std::mt19937_64 random(13);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<RunResults> runs;
  for (int commit = 1; commit <= 24; ++commit) {
    RunResults run = run_numbered(commit);
    for (CellRecord& cell : run.cells) {
      const bool touched = commit >= 13 && run.plan.variants[cell.cell.variant].label() == "new" &&
                           cell.cell.spec.workload == Workload::allocate;
      const double scale = (touched ? 1.06 : 1.0) * std::exp(noise(random));
      for (ProcessMeasurement& p : cell.processes) {
        p.median_ns_per_op *= scale;
        for (double& sample : p.sample_ns_per_op) sample *= scale;
      }
    }
    resummarize_all(run);
    runs.push_back(std::move(run));
  }
  const std::string path = store();
  auto check = [&](const char* when) {
    HistoryStore history(path);
    const std::vector<Series> series = read_series(history, {});
    ASSERT_EQ(series.size(), static_cast<std::size_t>(measured_cells(runs[0]))) << when;
    const std::vector<SeriesChange> changes = find_changes(series, ChangePointRule{});
    std::size_t touched = 0;
    for (const Series& s : series) touched += s.variant == "new" && s.workload == "allocate" ? 1 : 0;
    ASSERT_GT(touched, 0u);
    EXPECT_EQ(changes.size(), touched) << when;
    for (const SeriesChange& c : changes) {
      EXPECT_EQ(c.commit, "c13") << when << " " << c.series->variant << " " << c.series->workload;
      EXPECT_EQ(c.previous_commit, "c12");
      EXPECT_EQ(c.series->variant, "new");
      EXPECT_EQ(c.series->workload, "allocate");
      EXPECT_NEAR(c.change, 0.06, 0.015);
    }
  };
  {
    HistoryStore history(path);
    for (int i = 0; i < 24; ++i) history.record(runs[i], {fmt::format("c{:02d}", i + 1), "main", "dir", ""});
  }
  check("recorded");
  {
    HistoryStore history(path);
    std::size_t next = 0;
    history.rebuild([&](RunResults& run, RunIdentity& id) {
      if (next == runs.size()) return false;
      run = runs[next];
      id = {fmt::format("c{:02d}", next + 1), "main", "dir", fmt::format("2026-12-06T00:00:{:02d}.000000Z", next)};
      ++next;
      return true;
    });
  }
  check("rebuilt");
}

TEST(HistoryStore, TheCommitIsGivenOrTheCisAndNeverGuessed) {
  for (const char* name : {"GITHUB_SHA", "CI_COMMIT_SHA", "BUILDKITE_COMMIT", "GIT_COMMIT"}) unsetenv(name);
  EXPECT_THROW(commit_of_run(""), UsageError);
  EXPECT_EQ(commit_of_run("abc123"), "abc123");
  setenv("CI_COMMIT_SHA", "def456", 1);
  EXPECT_EQ(commit_of_run(""), "def456");
  EXPECT_EQ(commit_of_run("abc123"), "abc123") << "--commit wins over the CI's";
  unsetenv("CI_COMMIT_SHA");
  for (const char* bad : {"two words", "-rf", "tab\there"}) EXPECT_THROW(commit_of_run(bad), UsageError) << bad;
  EXPECT_THROW(commit_of_run(std::string(201, 'a')), UsageError);
}

TEST(HistoryStore, AStoreThatIsNeitherAFileNorPostgresqlIsRefusedAndOneNotThereIsUnreachable) {
  EXPECT_THROW(HistoryStore("mysql://host/db"), UsageError);
  EXPECT_THROW(HistoryStore(""), UsageError);
  EXPECT_THROW(HistoryStore("/nonexistent-directory/history.db"), EnvironmentError);
  EXPECT_THROW(HistoryStore("postgresql:///none?host=/nonexistent-directory&connect_timeout=2"), EnvironmentError);
}

INSTANTIATE_TEST_SUITE_P(SqliteAndPostgresql, Stores, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace abench
