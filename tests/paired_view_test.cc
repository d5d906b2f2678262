// paired_view: the cells two variants measure, laid out as a compare's sides, and refused
// where the two do not measure the same work (a results file from elsewhere may say anything).
#include <gtest/gtest.h>

#include "src/plan/plan.h"
#include "src/results/paired_view.h"
#include "src/util/errors.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

RunResults results_of(const Plan& plan) {
  RunResults r;
  r.plan = plan;
  for (const PlannedCell& cell : plan.cells) {
    CellRecord record;
    record.cell = cell;
    r.cells.push_back(std::move(record));
  }
  return r;
}

TEST(PairedView, LaysTwoVariantsOutAsACompareAndRenumbersTheirCells) {
  Matrix m = testing::small_matrix({"system"}, 2);  // 4 cells a variant
  std::vector<Variant> variants = matrix_variants(m);
  variants.push_back(variants[0]);
  variants.push_back(variants[0]);
  variants[1].name = "b";
  variants[2].name = "c";
  const RunResults r = results_of(make_variant_plan(m, variants, 1));
  const RunResults view = paired_view(r, {{2, 0}});  // c against the first
  ASSERT_EQ(view.plan.variants.size(), 2u);
  EXPECT_EQ(view.plan.variants[0].label(), "c");
  ASSERT_EQ(view.cells.size(), 8u);
  for (std::size_t i = 0; i < view.cells.size(); ++i) {
    EXPECT_EQ(view.cells[i].cell.spec.id, static_cast<int>(i));
    EXPECT_EQ(view.cells[i].cell.variant, i / 4);
  }
  EXPECT_EQ(view.plan.partner[1], 5);
  EXPECT_EQ(view.plan.partner[5], 1);
  for (const Job& job : view.plan.jobs) EXPECT_LT(job.variant, 2u);  // b's jobs are left out
}

TEST(PairedView, RefusesTwoVariantsThatMeasureDifferentWork) {
  Matrix m = testing::small_matrix({"system"}, 2);
  m.policies = {Policy::exact, Policy::padded};
  const RunResults r = results_of(make_plan(m, 1));
  EXPECT_THROW(paired_view(r, {{0, 1}}), UsageError);
}

TEST(ContextPlan, RefusesALabelThatWouldReadAsAFreshTwin) {
  Matrix m = testing::small_matrix({"system"}, 1);
  std::vector<Variant> variants = matrix_variants(m);
  variants[0].name = "mine (fresh)";
  EXPECT_THROW(make_context_plan(m, variants, 1), UsageError);
}

}  // namespace
}  // namespace abench
