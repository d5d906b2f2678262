// Files from elsewhere are data, never authority (docs/security.md): each case hands the real
// CLI a directory someone else prepared (planted links, crafted files) and checks the exit
// code, the message, and that nothing was written where it must not be.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::read_file;
using testing::run_cli;
namespace fs = std::filesystem;

class HostileInputs : public ::testing::Test {
 protected:
  // One real run, measured once, copied into each case's directory.
  static void SetUpTestSuite() {
    measured_ = new testing::TempDir;
    const auto r = run_cli({"run",
                            "--matrix",
                            "quick",
                            "--backend",
                            "system",
                            "--workload",
                            "allocate,grow",
                            "--size",
                            "64",
                            "--align",
                            "64",
                            "--live",
                            "1",
                            "--samples",
                            "3",
                            "--processes",
                            "2",
                            "--min-batch-ms",
                            "0.2",
                            "--no-counts",
                            "--no-report",
                            "--out",
                            (measured_->path() / "run").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { delete measured_; }

  // A copy of the measured run in this case's directory.
  fs::path copy_of_run(const std::string& name) const {
    const fs::path to = dir_.path() / name;
    fs::copy(measured_->path() / "run", to, fs::copy_options::recursive);
    return to;
  }
  // A file outside the results that a planted link points at, and what it holds.
  fs::path outside(const std::string& name) const { return fs::path(dir_.write(name, "precious\n")); }

  static testing::TempDir* measured_;
  testing::TempDir dir_;
};
testing::TempDir* HostileInputs::measured_ = nullptr;

TEST_F(HostileInputs, AReportDirectoryThatIsALinkIsRefusedAndNothingIsWrittenThroughIt) {
  const fs::path run = copy_of_run("run");
  const fs::path elsewhere = dir_.path() / "elsewhere";
  fs::create_directories(elsewhere);
  fs::create_directory_symlink(elsewhere, run / "report");
  const auto r = run_cli({"report", run.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find((run / "report").string() + ": is a symbolic link"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(elsewhere));
  EXPECT_FALSE(fs::exists(run / "report.html"));
}

TEST_F(HostileInputs, LinksPlantedWhereTheReportWritesAreReplacedNeverWrittenThrough) {
  // Learn the names a report writes, then plant a link at each of them in a fresh copy
  // (and at the names the temporaries and gnuplot's messages had before).
  const fs::path first = copy_of_run("first");
  ASSERT_EQ(run_cli({"report", first.string()}).exit_code, 0);
  std::vector<fs::path> written{"report.html"};
  for (const auto& e : fs::directory_iterator(first / "report"))
    written.push_back(fs::path("report") / e.path().filename());
  ASSERT_GT(written.size(), 4u);

  const fs::path run = copy_of_run("run");
  fs::create_directories(run / "report");
  std::vector<std::string> planted_names;
  for (const fs::path& name : written) planted_names.push_back(name.string());
  for (const char* extra : {"report/.render.gp", "report/.render.gp.stderr", "report.html.tmp.1"})
    planted_names.push_back(extra);
  std::vector<fs::path> targets;
  for (std::size_t i = 0; i < planted_names.size(); ++i) {
    targets.push_back(outside("target" + std::to_string(i)));
    fs::create_symlink(targets.back(), run / planted_names[i]);
  }
  const auto r = run_cli({"report", run.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const fs::path& target : targets) EXPECT_EQ(read_file(target), "precious\n") << target;
  for (const fs::path& name : written) EXPECT_FALSE(fs::is_symlink(run / name)) << name;
  EXPECT_NE(read_file(run / "report.html").find("<html"), std::string::npos);
}

}  // namespace
}  // namespace abench
