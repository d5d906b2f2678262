#include <gtest/gtest.h>

#include "src/util/errors.h"
#include "src/plan/plan.h"
#include "src/plan/variant.h"
#include "tests/temp_dir.h"
#include "tests/test_matrix.h"

namespace abench {
namespace {

const std::vector<std::string> kBuilt{"system", "mimalloc", "jemalloc"};

std::string error_of(const std::string& spec) {
  try {
    parse_variant_spec(spec, "--baseline", kBuilt);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

TEST(VariantSpec, ParsesBuiltInVariantAndLabel) {
  const VariantSpec s = parse_variant_spec("backend=mimalloc,policy=padded,label=old", "--baseline", kBuilt);
  EXPECT_EQ(*s.backend, "mimalloc");
  EXPECT_EQ(*s.policy, Policy::padded);
  EXPECT_EQ(s.fields.name, "old");
}

TEST(VariantSpec, EnvValuesMayContainCommas) {
  const VariantSpec s = parse_variant_spec("backend=jemalloc,env=MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0,env=X=1",
                                           "--candidate", kBuilt);
  ASSERT_EQ(s.fields.env.size(), 2u);
  EXPECT_EQ(s.fields.env[0], (std::pair<std::string, std::string>{"MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0"}));
  EXPECT_EQ(s.fields.env[1], (std::pair<std::string, std::string>{"X", "1"}));
}

TEST(VariantSpec, PreloadMeansTheSystemWorker) {
  testing::TempDir dir;
  const std::string lib = dir.write("libmine.so", "x");
  const VariantSpec s = parse_variant_spec("preload=" + lib, "--candidate", kBuilt);
  EXPECT_EQ(*s.backend, "system");
  EXPECT_NE(error_of("backend=mimalloc,preload=" + lib).find("cannot be combined with backend=mimalloc"),
            std::string::npos);
}

TEST(VariantSpec, BadSpecsNameTheProblem) {
  EXPECT_NE(error_of("backend=hoard").find("unknown backend 'hoard'"), std::string::npos);
  EXPECT_NE(error_of("policy=lazy").find("unknown policy 'lazy'"), std::string::npos);
  EXPECT_NE(error_of("plugin=/no/such/libsubject.so").find("plugin '/no/such/libsubject.so' does not exist"),
            std::string::npos);
  EXPECT_NE(error_of("colour=red").find("unknown field 'colour=red' (allowed: backend=, policy="), std::string::npos);
  EXPECT_NE(error_of("env=NOVALUE").find("env needs KEY=VALUE"), std::string::npos);
  EXPECT_NE(error_of("").find("empty variant"), std::string::npos);
}

TEST(VariantSpec, OpenFieldsExpandOverTheMatrix) {
  Matrix m = testing::small_matrix({"system", "mimalloc"}, 3);
  const auto both = expand_variant_spec(parse_variant_spec("policy=padded", "--baseline", kBuilt), m);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].label(), "system/padded");
  EXPECT_EQ(both[1].label(), "mimalloc/padded");
  EXPECT_EQ(expand_variant_spec(parse_variant_spec("backend=jemalloc", "--x", kBuilt), m).size(), 1u);
}

TEST(ComparePlan, TwoBuildsOfOneAllocatorNeverShareALabel) {
  const Matrix m = testing::small_matrix({"system"}, 2);
  Variant old_build, new_build;
  old_build.preload = "/opt/mimalloc-2.1.7/lib/libmimalloc.so";
  new_build.preload = "/opt/mimalloc-3.3.2/lib/libmimalloc.so";
  EXPECT_EQ(old_build.label(), new_build.label());  // the file's stem alone cannot tell them apart
  const Plan plan = make_compare_plan(m, {old_build}, {new_build}, 1);
  EXPECT_EQ(plan.variants[0].label(), "system/exact+preload:mimalloc-2.1.7/lib/libmimalloc.so");
  EXPECT_EQ(plan.variants[1].label(), "system/exact+preload:mimalloc-3.3.2/lib/libmimalloc.so");

  // The same spec on both sides (an A/A run without labels) is numbered.
  const Plan same = make_compare_plan(m, {old_build}, {old_build}, 1);
  EXPECT_NE(same.variants[0].label(), same.variants[1].label());
  EXPECT_TRUE(same.variants[1].label().ends_with(" #2"));
}

TEST(ComparePlan, AlternatesWhichSideGoesFirstAndPairsCells) {
  const Matrix m = testing::small_matrix({"system"}, 4);
  Variant base, cand;
  base.policy = Policy::padded;
  cand.policy = Policy::exact;
  const Plan plan = make_compare_plan(m, {base}, {cand}, 1);
  ASSERT_EQ(plan.jobs.size(), 8u);
  std::vector<std::size_t> order;
  for (const Job& job : plan.jobs) order.push_back(job.variant);
  EXPECT_EQ(order, (std::vector<std::size_t>{0, 1, 1, 0, 0, 1, 1, 0}));
  for (const PlannedCell& c : plan.cells) {
    const auto& partner = plan.cells[static_cast<std::size_t>(plan.partner[static_cast<std::size_t>(c.spec.id)])];
    EXPECT_NE(partner.variant, c.variant);
    EXPECT_EQ(partner.spec.workload, c.spec.workload);
    EXPECT_EQ(partner.spec.size, c.spec.size);
    EXPECT_EQ(partner.spec.live, c.spec.live);
  }
}

}  // namespace
}  // namespace abench
