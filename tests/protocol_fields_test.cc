// The protocol's table (src/plan/protocol_fields.h) drives the matrix reader, the command
// line, results.json's writer and reader, and the docs: each test runs over every row, so
// a row added to the table is checked everywhere without a new test.
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "src/cli/options.h"
#include "src/flow/measure_setup.h"
#include "src/plan/protocol_fields.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/util/errors.h"
#include "tests/synthetic_results.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using Kind = ProtocolField::Kind;

// A value inside the row's range that is not the default, and one outside it.
nlohmann::json other_value(const ProtocolField& f) {
  const RunProtocol defaults;
  if (f.kind == Kind::flag) return !protocol_field_value(f, defaults).get<bool>();
  const double v = f.kind == Kind::whole ? f.high : (f.low + f.high) / 2;
  return f.kind == Kind::whole ? nlohmann::json(static_cast<int>(v)) : nlohmann::json(v);
}
nlohmann::json outside(const ProtocolField& f) {
  if (f.kind == Kind::flag) return "yes";
  return f.kind == Kind::whole ? nlohmann::json(static_cast<int>(f.high) + 1) : nlohmann::json(f.high * 2);
}

std::string matrix_with_protocol(const nlohmann::json& protocol) {
  return nlohmann::json{{"backends", {"system"}}, {"policies", {"exact"}}, {"workloads", {"allocate"}}, {"sizes", {64}},
                        {"alignments", {16}},     {"live", {1}},           {"protocol", protocol}}
      .dump();
}

TEST(ProtocolFields, EveryRowIsReadFromAMatrixFileAndRefusedOutsideItsRange) {
  for (const ProtocolField& f : protocol_fields()) {
    testing::TempDir dir;
    const nlohmann::json value = other_value(f);
    const Matrix m = load_matrix(dir.write("m.json", matrix_with_protocol({{f.key, value}})), {"system"});
    EXPECT_EQ(protocol_field_value(f, m.protocol), value) << f.key;
    try {
      load_matrix(dir.write("bad.json", matrix_with_protocol({{f.key, outside(f)}})), {"system"});
      ADD_FAILURE() << f.key << " = " << outside(f).dump() << " was accepted";
    } catch (const UsageError& e) {
      const std::string error = e.what();
      EXPECT_NE(error.find(fmt::format("bad.json: field 'protocol.{}'", f.key)), std::string::npos) << error;
      EXPECT_NE(error.find(allowed_values(f)), std::string::npos) << error;
    }
  }
}

TEST(ProtocolFields, EveryRowHasAnOptionThatSetsItByTheSameRule) {
  for (const ProtocolField& f : protocol_fields()) {
    const nlohmann::json value = other_value(f);
    std::vector<std::string> args{"run", std::string(f.option)};
    if (f.kind != Kind::flag) args.push_back(value.dump());
    CLI::App app;
    MeasureOptions options;
    add_measure_options(*app.add_subcommand("run"), options);
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    app.parse(reversed);
    options.matrix = "quick";
    options.backends = {"system"};
    const Matrix m = load_measure_matrix(options, {"system"});
    EXPECT_EQ(protocol_field_value(f, m.protocol), value) << f.option;

    if (f.kind == Kind::flag) continue;
    CLI::App refusing;
    MeasureOptions ignored;
    add_measure_options(*refusing.add_subcommand("run"), ignored);
    std::vector<std::string> bad{outside(f).dump(), std::string(f.option), "run"};
    try {
      refusing.parse(bad);
      ADD_FAILURE() << f.option << " " << outside(f).dump() << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(allowed_values(f)), std::string::npos) << e.what();
    }
  }
}

TEST(ProtocolFields, EveryRowIsRecordedInResultsJsonAndReadBack) {
  RunResults results = testing::synthetic_compare();
  // Whole numbers (samples, processes) keep the synthetic run's own, which its cells agree with.
  std::map<std::string_view, nlohmann::json> value;
  for (const ProtocolField& f : protocol_fields()) {
    value[f.key] = f.kind == Kind::whole ? protocol_field_value(f, results.protocol) : other_value(f);
    ASSERT_EQ(set_protocol_field(f, value[f.key], results.protocol), "");
    ASSERT_EQ(set_protocol_field(f, value[f.key], results.matrix.protocol), "");
  }
  const nlohmann::json written = results_to_json(results);
  const RunResults read = results_from_json(written, "results.json");
  for (const ProtocolField& f : protocol_fields()) {
    EXPECT_EQ(written["protocol"][f.key], value[f.key]) << f.key;
    EXPECT_EQ(protocol_field_value(f, read.protocol), value[f.key]) << f.key;
  }
}

TEST(ProtocolFields, AFileFromBeforeAFieldExistedReadsAsItWasMeasured) {
  const nlohmann::json written = results_to_json(testing::synthetic_compare());
  for (const ProtocolField& f : protocol_fields()) {
    nlohmann::json older = written;
    older["protocol"].erase(std::string(f.key));
    if (!f.before_recorded) {
      EXPECT_THROW(results_from_json(older, "results.json"), UsageError) << f.key << " is required";
      continue;
    }
    const RunResults read = results_from_json(older, "results.json");
    EXPECT_EQ(protocol_field_value(f, read.protocol).dump(), value_before_recorded(f).dump()) << f.key;
  }
}

TEST(ProtocolFields, EveryRowIsDocumented) {
  std::ifstream matrix_doc(std::string(ABENCH_SOURCE_DIR_FOR_LAYERS) + "/docs/matrix.md");
  std::ifstream cli_doc(std::string(ABENCH_SOURCE_DIR_FOR_LAYERS) + "/docs/cli.md");
  const std::string matrix_md{std::istreambuf_iterator<char>(matrix_doc), {}};
  const std::string cli_md{std::istreambuf_iterator<char>(cli_doc), {}};
  for (const ProtocolField& f : protocol_fields()) {
    EXPECT_NE(matrix_md.find(fmt::format("| {} |", f.key)), std::string::npos) << f.key << " not in docs/matrix.md";
    EXPECT_NE(cli_md.find(f.option), std::string::npos) << f.option << " not in docs/cli.md";
  }
}

// The workload and measure tables name what the docs describe and the readers accept.
TEST(ExtensionTables, EveryWorkloadAndMeasureIsDocumentedAndNamedBackAndForth) {
  std::ifstream doc(std::string(ABENCH_SOURCE_DIR_FOR_LAYERS) + "/docs/measurement.md");
  const std::string measurement_md{std::istreambuf_iterator<char>(doc), {}};
  for (const WorkloadRow& w : kWorkloads) {
    EXPECT_NE(measurement_md.find(fmt::format("| {} |", w.name)), std::string::npos) << w.name;
    EXPECT_EQ(workload_from_name(w.name), w.workload) << w.name;
    EXPECT_EQ(parse_workload(std::string(w.name), "test"), w.workload);
  }
  for (const MeasureRow& m : kMeasures) {
    Measure named = Measure::time;
    EXPECT_TRUE(measure_named(m.name, named)) << m.name;
    EXPECT_EQ(named, m.measure);
    EXPECT_EQ(std::string_view(name_of(m.measure)), m.name);
    EXPECT_NE(measure_names().find(m.name), std::string::npos);
  }
}

}  // namespace
}  // namespace abench
