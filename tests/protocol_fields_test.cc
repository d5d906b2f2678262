// The protocol's table (src/plan/protocol_fields.h) drives the matrix reader, the command
// line, results.json's writer and reader, and the docs: each test runs over every row, so
// a row added to the table is checked everywhere without a new test.
#include <cmath>
#include <fstream>
#include <map>
#include <set>
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
  switch (f.kind) {
    case Kind::flag: return !protocol_field_value(f, defaults).get<bool>();
    case Kind::whole: return static_cast<int>(f.none.empty() ? f.high : f.low);  // cpu 0: one every machine has
    case Kind::seed: return 12345;
    case Kind::choice: return f.choices.at(1);
    case Kind::decimal: {
      // A whole number where the range has one, which a percent field turns into a fraction and back exactly.
      const double middle = (f.low + f.high) / 2, whole = std::round(middle);
      return whole >= f.low && whole <= f.high ? whole : middle;
    }
  }
  return nullptr;
}
nlohmann::json outside(const ProtocolField& f) {
  switch (f.kind) {
    case Kind::flag: return "yes";
    case Kind::whole: return static_cast<int>(f.high) + 1;
    case Kind::seed: return -1;
    case Kind::choice: return "no-such-choice";
    case Kind::decimal: return f.high * 2;
  }
  return nullptr;
}

std::string matrix_with_protocol(const nlohmann::json& protocol) {
  return nlohmann::json{{"backends", {"system"}}, {"policies", {"exact"}}, {"workloads", {"allocate"}}, {"sizes", {64}},
                        {"alignments", {16}},     {"live", {1}},           {"protocol", protocol}}
      .dump();
}

// Every kind and place is in the table: a loop below that meets none of a kind tests nothing.
TEST(ProtocolFields, TheTableHoldsEveryKindAndAGroup) {
  std::set<Kind> kinds;
  for (const ProtocolField& f : protocol_fields()) {
    kinds.insert(f.kind);
    EXPECT_TRUE(f.in(ProtocolField::kResults) || f.in(ProtocolField::kMatrix)) << f.key << " is kept nowhere";
    EXPECT_EQ(f.in(ProtocolField::kOption), !f.option.empty()) << f.key;
    if (group_of(f)) {
      EXPECT_FALSE(f.in(ProtocolField::kMatrix)) << f.key << ": the matrix reader reads no groups";
    }
  }
  EXPECT_EQ(kinds.size(), 5u);
  EXPECT_NE(protocol_field("until_interval.width_percent"), nullptr);
  for (const char* key : {"measure", "order", "process_mode", "interleave_batches", "cpu", "seed",
                          "until_interval.max_rounds", "until_interval.confidence", "until_interval.budget_seconds"})
    EXPECT_NE(protocol_field(key), nullptr) << key;
}

TEST(ProtocolFields, EveryRowIsReadFromAMatrixFileAndRefusedOutsideItsRange) {
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(ProtocolField::kMatrix)) continue;
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

MeasureOptions parsed(const std::vector<std::string>& args) {
  CLI::App app;
  MeasureOptions options;
  add_measure_options(*app.add_subcommand("run"), options);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  reversed.push_back("run");
  app.parse(reversed);
  return options;
}

TEST(ProtocolFields, EveryRowWithAnOptionIsSetByItByTheSameRule) {
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(ProtocolField::kOption)) continue;
    const nlohmann::json value = other_value(f);
    std::vector<std::string> args{f.option};
    if (f.kind == Kind::choice)
      args.push_back(value.get<std::string>());
    else if (f.duration)
      args.push_back(fmt::format("{}s", value.dump()));
    else if (f.kind != Kind::flag)
      args.push_back(value.dump());
    const MeasureOptions options = parsed(args);
    EXPECT_TRUE(options.protocol.has(f.key)) << f.option;
    EXPECT_EQ(protocol_field_value(f, options.protocol.values), value) << f.option;

    if (f.kind == Kind::flag) continue;
    const std::string bad = outside(f).is_string() ? outside(f).get<std::string>() : outside(f).dump();
    try {
      parsed({f.option, bad});
      ADD_FAILURE() << f.option << " " << bad << " was accepted";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(f.duration ? "is not a duration" : allowed_values(f)), std::string::npos)
          << e.what();
    }
  }
}

// What the options gave reaches the matrix's protocol, field by field (the measure aside:
// whether this machine can take one is apply_measure_options' own test).
TEST(ProtocolFields, EveryOptionGivenReachesTheProtocol) {
  MeasureOptions options;
  options.protocol.give("until_interval.width_percent", 50);
  for (const ProtocolField& f : protocol_fields())
    // --no-pin excludes --cpu; --layouts refuses the --until-interval given here (its own
    // combinations: tests/layouts_e2e_test.cc).
    if (f.in(ProtocolField::kOption) && f.key != "measure" && f.key != "until_interval.width_percent" &&
        !(f.kind == Kind::flag && f.key == "pin") && f.key != "layouts")
      options.protocol.give(f.key, other_value(f));
  options.matrix = "quick";
  options.backends = {"system"};
  const Matrix m = load_measure_matrix(options, {"system"});
  for (const std::string& key : options.protocol.keys)
    EXPECT_EQ(protocol_field_value(*protocol_field(key), m.protocol),
              protocol_field_value(*protocol_field(key), options.protocol.values))
        << key;
}

// A run's protocol with every results.json row at a value of its own, the groups on.
RunResults results_with_every_field(std::map<std::string_view, nlohmann::json>& value) {
  RunResults results = testing::synthetic_compare();
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(ProtocolField::kResults) || f.key == "measure") continue;
    // Whole numbers (samples, processes) keep the synthetic run's own, which its cells agree with.
    const nlohmann::json own = protocol_field_value(f, results.protocol);
    RunProtocol scratch;
    value[f.key] = f.kind == Kind::whole && set_protocol_field(f, own, scratch).empty() ? own : other_value(f);
    EXPECT_EQ(set_protocol_field(f, value[f.key], results.protocol), "") << f.key;
    EXPECT_EQ(set_protocol_field(f, value[f.key], results.matrix.protocol), "") << f.key;
  }
  return results;
}

nlohmann::json* written_at(nlohmann::json& protocol, const ProtocolField& f) {
  const ProtocolGroup* group = group_of(f);
  if (!group) return &protocol[std::string(f.key)];
  return &protocol[std::string(group->key)][std::string(key_in_group(f))];
}

TEST(ProtocolFields, EveryRowIsRecordedInResultsJsonAndReadBack) {
  std::map<std::string_view, nlohmann::json> value;
  const RunResults results = results_with_every_field(value);
  nlohmann::json written = results_to_json(results);
  const RunResults read = results_from_json(written, "results.json");
  for (const auto& [key, expected] : value) {
    const ProtocolField& f = *protocol_field(key);
    EXPECT_EQ(*written_at(written["protocol"], f), expected) << f.key;
    EXPECT_EQ(protocol_field_value(f, read.protocol), expected) << f.key;
  }
  EXPECT_FALSE(written["protocol"].contains("fresh_process_per_cell")) << "results.json keeps process_mode";
}

TEST(ProtocolFields, AFileFromBeforeAFieldExistedReadsAsItWasMeasured) {
  std::map<std::string_view, nlohmann::json> value;
  const nlohmann::json written = results_to_json(results_with_every_field(value));
  for (const ProtocolField& f : protocol_fields()) {
    if (!f.in(ProtocolField::kResults)) continue;
    nlohmann::json older = written;
    const ProtocolGroup* group = group_of(f);
    (group ? older["protocol"][std::string(group->key)] : older["protocol"]).erase(std::string(key_in_group(f)));
    if (f.before_recorded.is_null()) {
      EXPECT_THROW(results_from_json(older, "results.json"), UsageError) << f.key << " is required";
      continue;
    }
    const RunResults read = results_from_json(older, "results.json");
    RunProtocol expected;
    set_as_before_recorded(f, expected);
    EXPECT_EQ(protocol_field_value(f, read.protocol), protocol_field_value(f, expected)) << f.key;
  }
}

TEST(ProtocolFields, AGroupThatIsOffIsNotWrittenAndReadsAsOff) {
  const nlohmann::json written = results_to_json(testing::synthetic_compare());
  ASSERT_EQ(testing::synthetic_compare().protocol.until_interval, 0);
  for (const ProtocolGroup& g : protocol_groups()) EXPECT_FALSE(written["protocol"].contains(std::string(g.key)));
  EXPECT_EQ(results_from_json(written, "results.json").protocol.until_interval, 0);
}

TEST(ProtocolFields, EveryRowIsDocumented) {
  auto read = [](const char* name) {
    std::ifstream in(std::string(ABENCH_SOURCE_DIR_FOR_LAYERS) + "/docs/" + name);
    return std::string{std::istreambuf_iterator<char>(in), {}};
  };
  const std::string matrix_md = read("matrix.md"), cli_md = read("cli.md"), results_md = read("results.md");
  // A field is documented once: a matrix field in matrix.md's table, its option on its line;
  // another kept in results.json in results.md; an option only in cli.md.
  for (const ProtocolField& f : protocol_fields()) {
    if (f.in(ProtocolField::kMatrix)) {
      const std::size_t line = matrix_md.find(fmt::format("| {} |", f.key));
      ASSERT_NE(line, std::string::npos) << f.key << " not in docs/matrix.md";
      const std::string text = matrix_md.substr(line, matrix_md.find('\n', line) - line);
      EXPECT_NE(text.find(fmt::format("`{}", f.option)), std::string::npos) << f.option << " not on " << text;
    } else if (f.in(ProtocolField::kResults)) {
      EXPECT_NE(results_md.find(key_in_group(f)), std::string::npos) << f.key << " not in docs/results.md";
    } else {
      EXPECT_NE(cli_md.find(f.option), std::string::npos) << f.option << " not in docs/cli.md";
    }
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
