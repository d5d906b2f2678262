// --explain's rule and files: the reading of a cell from its time verdict and its counts, the
// figures taken from an instrumented run, and compare.json's explanation read back as data
// (changes and readings derived, never taken from the file).
#include <gtest/gtest.h>

#include <functional>

#include "src/explain/explain_compare.h"
#include "src/util/errors.h"
#include "src/explain/callgrind_costs.h"
#include "src/explain/hot_path_files.h"
#include "src/explain/work_figures.h"
#include "src/report/report_hot_path.h"
#include "src/util/atomic_file.h"
#include "tests/temp_dir.h"
#include "src/verdict/compare.h"
#include "src/verdict/compare_file.h"
#include "tests/synthetic_results.h"

namespace abench {
namespace {

WorkFigures work(double instructions, double branch_misses = 1, double l1_misses = 0, double repeatability = 0) {
  WorkFigures w;
  for (std::string_view name : kWorkFigureNames) w.per_op[std::string(name)] = 10;
  w.per_op["instructions"] = instructions;
  w.per_op["branch_misses"] = branch_misses;
  w.per_op["l1_misses"] = l1_misses;
  w.per_op["ll_misses"] = 0;
  w.repeatability = repeatability;
  return w;
}

// A time called slower or faster by `change`, with its interval (percent).
TimeChange called(double change, double low, double high) {
  return {change > 0 ? TimeMove::slower : TimeMove::faster, change / 100, low / 100, high / 100};
}
const TimeChange kNotCalled{};

TEST(ExplainReading, InstructionsBeyondTheThresholdAreMoreOrLessWorkWhateverTheTime) {
  EXPECT_EQ(reading_of(called(2, 1, 3), work(100), work(102)), "more work");
  EXPECT_EQ(reading_of(kNotCalled, work(100), work(102)), "more work");
  EXPECT_EQ(reading_of(called(-2, -3, -1), work(100), work(98)), "less work");
  // Within 1%: the same work.
  EXPECT_EQ(reading_of(called(2, 1, 3), work(100), work(100.9)), "same work, slower");
  EXPECT_EQ(reading_of(called(-2, -3, -1), work(100), work(99.2)), "same work, faster");
  EXPECT_EQ(reading_of(kNotCalled, work(100), work(100.5)), "");
}

TEST(ExplainReading, ProcessesThatDisagreeRaiseTheBarForMoreWork) {
  // The instrumented processes of a side lay 3% apart: a 2% change is not more work.
  EXPECT_EQ(reading_of(called(2, 1, 3), work(100, 1, 0, 0.03), work(102)), "same work, slower");
  EXPECT_EQ(reading_of(called(4, 3, 5), work(100), work(104, 1, 0, 0.03)), "more work");
}

TEST(ExplainReading, SameWorkNamesTheMissesThatMoved) {
  EXPECT_EQ(reading_of(called(5, 3, 7), work(100, 1, 0), work(100, 1.8, 8)),
            "same work, slower (branch misses +0.80/op, L1 misses +8.00/op)");
  // Under 0.05 a operation: not named.
  EXPECT_EQ(reading_of(called(5, 3, 7), work(100, 1, 0), work(100, 1.04, 0.01)), "same work, slower");
}

// mimalloc 3.3.2 against 3.4.3 (issue 48): +3.1% instructions, +31% [+30%, +33%] time. The work
// explains a tenth of it; the reading says what is left and what moved with it.
TEST(ExplainReading, WorkThatExplainsPartOfTheTimeSaysHowMuchIsLeft) {
  EXPECT_EQ(reading_of(called(31, 30, 33), work(100, 1, 0), work(103.1, 1, 0)),
            "more work (+3.1% instructions; time 27.1% above what it explains)");
  EXPECT_EQ(reading_of(called(31, 30, 33), work(100, 1, 0), work(103.1, 1.5, 0)),
            "more work (+3.1% instructions; time 27.1% above what it explains: branch misses +0.50/op)");
  // Time that moved less than the work: below it; faster despite more work likewise.
  EXPECT_EQ(reading_of(called(2, 1, 3), work(100), work(110)),
            "more work (+10.0% instructions; time 7.3% below what it explains)");
  EXPECT_EQ(reading_of(called(-5, -6, -4), work(100), work(103)),
            "more work (+3.0% instructions; time 7.8% below what it explains)");
  // Less work and slower still: above it.
  EXPECT_EQ(reading_of(called(4, 3, 5), work(100), work(95)),
            "less work (-5.0% instructions; time 9.5% above what it explains)");
  // An interval that holds the work's share: the work is the reading, with nothing beyond.
  EXPECT_EQ(reading_of(called(5, 1, 9), work(100), work(103)), "more work");
}

TEST(ExplainFigures, ComeFromTheInstrumentedRunsSummaryWithTheProcessesSpread) {
  CellRecord cell;
  cell.summary.status = CellStatus::ok;
  cell.summary.ns_per_op = 200;  // instructions, in instructions mode
  cell.summary.process_min_ns = 199;
  cell.summary.process_max_ns = 201;
  for (std::string_view name : kWorkFigureNames)
    if (name != "instructions") cell.summary.counters_per_op[std::string(name)] = 3;
  const auto w = work_figures_of(cell);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->at("instructions"), 200);
  EXPECT_EQ(w->at("branch_misses"), 3);
  EXPECT_DOUBLE_EQ(w->repeatability, 0.01);
  // Counted without the simulators: no figures, and the reason says so.
  cell.summary.counters_per_op.erase("branch_misses");
  EXPECT_FALSE(work_figures_of(cell));
  EXPECT_NE(why_no_work_figures(&cell).find("without callgrind's cache and branch simulators"), std::string::npos);
  cell.summary.status = CellStatus::refused;
  cell.refusal = "refused: mmap";
  EXPECT_FALSE(work_figures_of(cell));
  EXPECT_EQ(why_no_work_figures(&cell), "refused: mmap");
}

// A synthetic compare explained by a synthetic instrumented run of the same plan: cell 0's
// candidate does twice the instructions.
Comparison explained_comparison() {
  const RunResults timed = testing::synthetic_compare(6, 1.1);
  Comparison c = compare_results(timed, VerdictSettings{});
  RunResults instrumented = timed;
  for (CellRecord& cell : instrumented.cells) {
    const bool candidate = cell.cell.variant % 2 == 1;
    cell.summary.status = CellStatus::ok;
    cell.summary.ns_per_op = candidate && cell.cell.spec.id % 2 == 0 ? 1100.0 : 1000.0;
    cell.summary.process_min_ns = cell.summary.process_max_ns = cell.summary.ns_per_op;
    cell.summary.counters_per_op.clear();
    for (std::string_view name : kWorkFigureNames)
      if (name != "instructions") cell.summary.counters_per_op[std::string(name)] = 4;
  }
  explain_comparison(c, instrumented);
  return c;
}

TEST(ExplainCompare, RowsGetBothSidesFiguresAndTheirReading) {
  const Comparison c = explained_comparison();
  ASSERT_TRUE(c.explained);
  const CompareRow& row = c.rows.front();
  ASSERT_TRUE(row.explanation && row.explanation->before && row.explanation->after);
  EXPECT_EQ(row.explanation->before->at("instructions"), 1000);
  EXPECT_EQ(row.explanation->after->at("instructions"), 1100);
  EXPECT_EQ(row.explanation->reading, "more work");
  const std::string csv = comparison_csv(c);
  EXPECT_NE(csv.find("instructions_before,instructions_after,instructions_change"), std::string::npos);
  EXPECT_NE(csv.find("branch_misses_change"), std::string::npos);
  EXPECT_NE(csv.find(",1000.000,1100.000,0.10000,"), std::string::npos) << csv;
  const std::string markdown = comparison_markdown(c);
  EXPECT_NE(markdown.find("| 1000 → 1100 (+10.0%) | more work |"), std::string::npos) << markdown;
}

TEST(ExplainCompare, CompareJsonReadsBackAndRefusesAForgedReadingOrChange) {
  const nlohmann::json good = comparison_json(explained_comparison());
  ASSERT_EQ(good["rows"][0]["reading"], "more work");
  EXPECT_EQ(comparison_json(comparison_from_json(good, "compare.json")), good);
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases{
      {[](auto& j) { j["rows"][0]["reading"] = "same work, faster"; },
       "field 'rows[0].reading' is 'same work, faster', but the rule makes the row's figures 'more work'"},
      {[](auto& j) { j["rows"][0]["instructions_change"] = 0.0; },
       "field 'rows[0].instructions_change' is 0.0, but the row's figures make it 0.1"},
      {[](auto& j) { j["rows"][0]["instructions_after"] = -5; },
       "field 'rows[0].instructions_after' must be a finite number"},
      {[](auto& j) { j["rows"][0]["instructions_after"] = nullptr; }, "field 'rows[0].work_unavailable' must say why"},
  };
  for (const auto& [edit, must_mention] : cases) {
    nlohmann::json j = good;
    edit(j);
    std::string error;
    try {
      comparison_from_json(j, "compare.json");
    } catch (const UsageError& e) {
      error = e.what();
    }
    EXPECT_NE(error.find(must_mention), std::string::npos) << "expected: " << must_mention << "\ngot: " << error;
  }
}

// callgrind's format: positions absolute, relative (+N, -N) or the same (*); an object named
// once (by ob= or a call's cob=) and referred to by its id after; a call's inclusive cost
// (after calls=) is not the calling instruction's own.
TEST(CallgrindCosts, EachInstructionsOwnIrByObjectAndAddress) {
  const std::string dump =
      "version: 1\npositions: instr line\nevents: Ir Dr\n"
      "ob=(1) /lib/liba.so\nfn=(1) f\n0x1000 10 3 1\n+4 * 2\n"
      "cob=(2) /lib/libb.so\ncfn=(2) g\ncalls=1 0x2000 5\n* * 100\n+2 11 1\n"
      "ob=(2)\nfn=(2)\n0x2000 5 7\n-0 * 1\nob=(1)\nfn=(1)\n0x1000 10 1\n"
      "totals: 115\n";
  InstructionCosts costs;
  EXPECT_EQ(add_instruction_costs(dump, costs), 3u + 2 + 1 + 7 + 1 + 1);
  EXPECT_EQ(costs["/lib/liba.so"][0x1000], 4u);
  EXPECT_EQ(costs["/lib/liba.so"][0x1004], 2u) << "the call's 100 is g's, not this instruction's";
  EXPECT_EQ(costs["/lib/liba.so"][0x1006], 1u);
  EXPECT_EQ(costs["/lib/libb.so"][0x2000], 8u);
}

TEST(HotPathFiles, AListingIsComparedWithoutTheAddressesThatMoveBetweenBuilds) {
  const std::string objdump =
      "0000000000001190 <tiny_allocate>:\n"
      "    1190:\tpush   %r12\n"
      "    11c3:\tmov    0x2e86(%rip),%rax        # 4050 <far_stride>\n"
      "    11d0:\tjmp    1367 <tiny_allocate+0x1d7>\n"
      " 15.66%     11d5:\tbl\t1a2b0 <mi_malloc>\n";
  EXPECT_EQ(normalised_listing(objdump),
            "push   %r12\nmov    (%rip),%rax        # <far_stride>\n"
            "jmp    <tiny_allocate+0x1d7>\nbl\t<mi_malloc>\n");
}

TEST(HotPathFiles, TheIndexReadsBackAndRefusesANameThatIsNoSymbol) {
  testing::TempDir dir;
  const auto hot = dir.path() / kExplainDirectory / kHotPathDirectory;
  std::filesystem::create_directories(hot);
  HotPathIndex index;
  index.listings.push_back({0, "a", "malloc", "/lib/liba.so", 0x1000, 64, true, ""});
  index.listings.push_back({1, "b", "malloc", "/lib/libb.so", 0x2000, 80, false, "no objdump"});
  index.diffs.push_back({0, "malloc", false, 4});
  nlohmann::json j = hot_path_index_json(index);
  write_file_atomically(hot / "index.json", j.dump());
  EXPECT_EQ(hot_path_index_json(read_hot_path_index(dir.path())), j);
  j["diffs"][0]["function"] = "../../etc/passwd";
  write_file_atomically(hot / "index.json", j.dump());
  try {
    read_hot_path_index(dir.path());
    ADD_FAILURE() << "a path was taken for a function's name";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("field 'diffs[0].function' must be a symbol"), std::string::npos) << e.what();
  }
}

TEST(HotPathFiles, TheReportShowsAPairsListingsAndDiffButNeverFollowsALink) {
  testing::TempDir dir;
  const auto hot = dir.path() / kExplainDirectory / kHotPathDirectory;
  std::filesystem::create_directories(hot);
  HotPathIndex index;
  index.listings.push_back({0, "old", "malloc", "/lib/liba.so", 0x1000, 64, true, ""});
  index.listings.push_back({1, "new", "malloc", "/lib/libb.so", 0x2000, 80, true, ""});
  index.diffs.push_back({0, "malloc", false, 2});
  write_file_atomically(hot / "index.json", hot_path_index_json(index).dump());
  write_file_atomically(hot / listing_file_name(0, "malloc"), "<malloc>:\n 10:\tret\n");
  write_file_atomically(hot / listing_file_name(1, "malloc"), "<malloc>:\n 10:\tnop\n 11:\tret\n");
  write_file_atomically(hot / diff_file_name(0, "malloc"), "-ret\n+nop\n+ret\n");
  std::vector<std::string> warnings;
  const auto sections = read_report_hot_paths(dir.path(), warnings);
  ASSERT_EQ(sections.size(), 1u);
  EXPECT_EQ(sections[0].listings.size(), 2u);
  EXPECT_EQ(sections[0].listings[1].first, "new: /lib/libb.so");
  EXPECT_EQ(sections[0].diff, "-ret\n+nop\n+ret\n");
  EXPECT_TRUE(warnings.empty());
  // A listing that is a link to another file (a secret beside it) is not read into the page.
  write_file_atomically(dir.path() / "secret", "private key\n");
  std::filesystem::remove(hot / listing_file_name(1, "malloc"));
  std::filesystem::create_symlink(dir.path() / "secret", hot / listing_file_name(1, "malloc"));
  EXPECT_TRUE(read_report_hot_paths(dir.path(), warnings).empty());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("is a link"), std::string::npos) << warnings[0];
}

}  // namespace
}  // namespace abench
