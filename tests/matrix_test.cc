#include <gtest/gtest.h>

#include "src/util/errors.h"
#include "src/plan/matrix.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

const std::vector<std::string> kBuilt{"system", "mimalloc", "jemalloc"};

std::string matrix_text(const std::string& override_field = "", const std::string& value = "") {
  nlohmann::json j = {{"backends", {"system", "mimalloc"}},
                      {"policies", {"exact", "padded"}},
                      {"workloads", {"allocate", "grow"}},
                      {"sizes", {64, 4096}},
                      {"alignments", {256, 4096}},
                      {"live", {1, 64}},
                      {"protocol", {{"samples", 5}, {"processes", 2}, {"min_batch_ms", 1}}}};
  if (!override_field.empty()) j[override_field] = nlohmann::json::parse(value);
  return j.dump(2);
}

// Loads text as a matrix and returns the error message ("" if it loaded).
std::string error_of(const std::string& text) {
  testing::TempDir dir;
  const std::string path = dir.write("m.json", text);
  try {
    load_matrix(path, kBuilt);
    return "";
  } catch (const UsageError& e) {
    return e.what();
  }
}

TEST(Matrix, ParsesAxesAndProtocol) {
  testing::TempDir dir;
  const Matrix m = load_matrix(dir.write("mine.json", matrix_text()), kBuilt);
  EXPECT_EQ(m.name, "mine");
  EXPECT_EQ(m.backends, (std::vector<std::string>{"system", "mimalloc"}));
  EXPECT_EQ(m.policies, (std::vector<Policy>{Policy::exact, Policy::padded}));
  EXPECT_EQ(m.sizes, (std::vector<std::size_t>{64, 4096}));
  // 256 is a preferred alignment (R=1, P=256); 4096 a requested one (R=P=4096).
  EXPECT_EQ(m.alignments, (std::vector<Alignment>{{1, 256}, {4096, 4096}}));
  EXPECT_EQ(m.protocol.samples, 5);
  EXPECT_EQ(m.protocol.processes, 2);
  EXPECT_DOUBLE_EQ(m.protocol.min_batch_ms, 1);
}

TEST(Matrix, AcceptsTheObjectFormOfAlignment) {
  testing::TempDir dir;
  const Matrix m = load_matrix(
      dir.write("m.json", matrix_text("alignments",
                                      R"([{"requested": 1, "preferred": 64}, {"requested": 32, "preferred": 16}])")),
      kBuilt);
  EXPECT_EQ(m.alignments, (std::vector<Alignment>{{1, 64}, {32, 16}}));
  EXPECT_EQ(m.alignments[1].effective(), 32u);
}

struct BadCase {
  std::string field, value, must_mention;
};

TEST(Matrix, RejectsBadValuesNamingTheFieldAndWhatIsAllowed) {
  const std::vector<BadCase> cases{
      {"backends", R"(["hoard"])",
       "unknown backend 'hoard' (allowed: system, mimalloc, jemalloc, tcmalloc, arena, linked)"},
      {"backends", R"(["tcmalloc"])", "backend 'tcmalloc' was not built"},
      {"policies", R"(["lazy"])", "field 'policies[0]': unknown policy 'lazy' (allowed: exact, padded)"},
      {"workloads", R"(["allocate", "shrink"])", "field 'workloads[1]': unknown workload 'shrink'"},
      {"alignments", R"([24])", "field 'alignments[0]': alignment 24 is not a power of two"},
      {"alignments", R"([{"requested": 1}])", "needs both 'requested' and 'preferred'"},
      {"sizes", R"([0])", "field 'sizes[0]': size 0 is out of range"},
      {"sizes", R"([1e30])", "field 'sizes[0]'"},
      {"sizes", R"([-5])", "is not a size in bytes"},
      {"sizes", R"([99999999999999999])", "out of range (allowed: 1 to"},
      {"live", R"([0])", "field 'live[0]'"},
      {"sizes", R"([])", "field 'sizes': must be a non-empty array"},
      {"sizes", R"([64, 64])", "field 'sizes[1]': 64 is listed twice"},
      {"entry", R"("fastest")", "unknown entry-point set 'fastest' (allowed: portable, native, rust)"},
      {"colour", R"("red")", "unknown field 'colour' (allowed: "},
      {"protocol", R"({"samples": 0})", "field 'protocol.samples'"},
      {"protocol", R"({"order": "random"})", "allowed: shuffled, matrix"},
      {"protocol", R"({"warmup": 3})", "unknown field 'warmup'"},
  };
  for (const auto& c : cases) {
    const std::string error = error_of(matrix_text(c.field, c.value));
    EXPECT_NE(error.find(c.must_mention), std::string::npos)
        << "field " << c.field << " = " << c.value << "\n  got: " << error;
    EXPECT_NE(error.find("m.json"), std::string::npos) << error;
  }
}

TEST(Matrix, MissingAxisIsAnError) {
  nlohmann::json j = nlohmann::json::parse(matrix_text());
  j.erase("live");
  EXPECT_NE(error_of(j.dump()).find("field 'live': missing"), std::string::npos);
}

TEST(Matrix, MalformedJsonNamesLineAndColumn) {
  const std::string error = error_of("{\n  \"sizes\": [64,\n  ]\n}\n");
  EXPECT_NE(error.find("malformed JSON at line 3, column 3"), std::string::npos) << error;
}

TEST(Matrix, UnknownMatrixNameListsTheAvailableOnes) {
  try {
    load_matrix("no-such-matrix", kBuilt);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("available matrices: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("default"), std::string::npos) << e.what();
  }
}

TEST(Matrix, ShippedMatricesLoad) {
  for (const char* name : {"default", "quick"}) {
    const Matrix m = load_matrix(name, {"system", "mimalloc", "jemalloc", "tcmalloc"});
    EXPECT_EQ(m.backends, (std::vector<std::string>{"system", "mimalloc", "jemalloc"})) << name;
    EXPECT_EQ(m.sizes, (std::vector<std::size_t>{64, 4096, 65536})) << name;
    EXPECT_EQ(m.alignments, (std::vector<Alignment>{{1, 256}, {4096, 4096}})) << name;
    EXPECT_EQ(m.lives, (std::vector<std::size_t>{1, 64})) << name;
    EXPECT_EQ(m.workloads.size(), 4u) << name;
  }
  const Matrix d = load_matrix("default", {"system", "mimalloc", "jemalloc"});
  EXPECT_DOUBLE_EQ(d.protocol.min_batch_ms, 25);
  EXPECT_EQ(d.protocol.samples, 11);
  EXPECT_EQ(d.protocol.processes, 3);
}

// On a machine with only the system allocator, `--backend system` must work with the
// shipped matrices, whose other backends it replaces; without it they are refused.
TEST(Matrix, BackendsTheCommandLineReplacesNeedOnlyBeKnown) {
  EXPECT_THROW(load_matrix("default", {"system"}), UsageError);
  const Matrix m = load_matrix("default", {"system"}, true);
  EXPECT_EQ(m.backends.size(), 3u);
  testing::TempDir dir;
  EXPECT_THROW(load_matrix(dir.write("bad.json", R"({"backends": ["nosuch"], "policies": ["exact"],
    "workloads": ["allocate"], "sizes": [64], "alignments": [1], "live": [1]})"),
                           {"system"}, true),
               UsageError);
}

TEST(Matrix, AlignmentTextForms) {
  EXPECT_EQ(parse_alignment_text("256", "x"), (Alignment{1, 256}));
  EXPECT_EQ(parse_alignment_text("4096", "x"), (Alignment{4096, 4096}));
  EXPECT_EQ(parse_alignment_text("64:16", "x"), (Alignment{64, 16}));
  EXPECT_THROW(parse_alignment_text("3", "x"), UsageError);
  EXPECT_THROW(parse_alignment_text("1:", "x"), UsageError);
  EXPECT_THROW(parse_alignment_text("abc", "x"), UsageError);
}

}  // namespace
}  // namespace abench
