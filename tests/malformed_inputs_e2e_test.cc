// The corpus of malformed input: each case is a command line (and the files it names) a
// new user or a careless CI script could give, with the exit code and the message it must
// get, and the rule that it leaves no output behind. Through the real CLI.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

using testing::CliResult;
using testing::run_cli;

// A results.json of one variant as abench writes it, with `cells` and `name` filled in.
std::string results_json(const std::string& cells, const std::string& matrix_name = "quick",
                         const std::string& extra = "") {
  return R"({"schema": "abench.results", "schema_version": 1, "complete": true, "run_id": "r", "started_at": "t",
    "interrupted_by": null, "finished_at": "t2",
    "command_line": ["abench", "run"], "conditions": {}, "workers": [], )" +
         extra + R"(
    "variants": [{"label": "system", "backend": "system", "policy": "exact", "plugin": "", "preload": "", "exe": "",
                  "env": {}}],
    "matrix": {"name": ")" +
         matrix_name + R"(", "backends": ["system"], "policies": ["exact"],
               "workloads": ["allocate"], "sizes": [64], "alignments": [{"requested": 1, "preferred": 256}], "live": [1]},
    "protocol": {"measure": "time", "min_batch_ms": 1, "samples": 3, "processes": 2, "cpu": null, "seed": 5},
    "cells": )" +
         cells + "}";
}

const std::string kCell = R"({"id": 0, "variant": "system", "side": "", "backend": "system", "policy": "exact",
  "workload": "allocate", "size": 64, "requested_align": 1, "preferred_align": 256, "live": 1, "status": "ok",
  "errors": [], "refusal": null, "counts": null, "counts_unavailable": null, "finished_rounds": [1, 2],
  "counting_finished": true, "processes": [
  {"round": 1, "pid": 10, "cpu": 1, "seed": 3, "iterations": 100, "warmup_batches": 2, "median_ns_per_op": 11,
   "samples_ns_per_op": [10, 11, 12]},
  {"round": 2, "pid": 11, "cpu": 1, "seed": 4, "iterations": 100, "warmup_batches": 2, "median_ns_per_op": 11,
   "samples_ns_per_op": [10, 11, 12]}]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  if (const std::size_t at = text.find(from); at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string matrix_with(const std::string& field_and_value) {
  std::string m = R"({"backends": ["system"], "policies": ["exact"], "workloads": ["allocate"], "sizes": [64],
                      "alignments": [1], "live": [1]})";
  if (field_and_value.empty()) return m;
  m.pop_back();
  return m + ", " + field_and_value + "}";
}

struct Malformed {
  const char* name;
  std::vector<std::string> args;  // @FILE@, @FILE2@: the files below; @DIR@: a fresh directory; @OUT@: must stay absent
  std::string file, file2;
  int exit_code;
  std::string must_mention;
};

void PrintTo(const Malformed& c, std::ostream* os) { *os << c.name; }

const std::vector<std::string> kQuick{"--matrix", "quick", "--backend", "system", "--size", "64", "--live", "1"};

std::vector<std::string> run_with(std::vector<std::string> extra, bool quick = true) {
  std::vector<std::string> args{"run"};
  if (quick) args.insert(args.end(), kQuick.begin(), kQuick.end());
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--out", "@OUT@"});
  return args;
}

std::vector<std::string> matrix_file_run() { return run_with({"--matrix", "@FILE@"}, false); }

std::vector<std::string> compare_with(const std::string& baseline, const std::string& candidate,
                                      std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"compare", "--baseline", baseline, "--candidate", candidate};
  args.insert(args.end(), kQuick.begin(), kQuick.end());
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--out", "@OUT@"});
  return args;
}

std::vector<std::string> gate_files(std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"gate", "--baseline", "@FILE@", "--candidate", "@FILE@", "--out", "@OUT@"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

const std::vector<Malformed> kCorpus{
    // Flags: each numeric one in a range a person would type, said in words.
    {"out_empty",
     {"run", "--matrix", "quick", "--backend", "system", "--out", ""},
     "",
     "",
     2,
     "--out: must not be empty"},
    {"format_empty_item", run_with({"--format", "go,,bencher"}), "", "", 2,
     "option --format: an empty item in the list"},
    {"samples_zero", run_with({"--samples", "0"}), "", "", 2,
     "--samples: 0 is out of range (allowed: a whole number from 1 to 10000)"},
    {"samples_text", run_with({"--samples", "many"}), "", "", 2, "--samples"},
    {"processes_zero", run_with({"--processes", "0"}), "", "", 2, "allowed: a whole number from 1 to 1000"},
    {"processes_huge", run_with({"--processes", "1001"}), "", "", 2, "allowed: a whole number from 1 to 1000"},
    {"min_batch_nan", run_with({"--min-batch-ms", "nan"}), "", "", 2, "allowed: a number from 0.001 to 60000 ms"},
    {"min_batch_huge", run_with({"--min-batch-ms", "1e300"}), "", "", 2, "allowed: a number from 0.001 to 60000 ms"},
    {"min_batch_negative", run_with({"--min-batch-ms", "-1"}), "", "", 2, "allowed: a number from 0.001 to 60000 ms"},
    {"min_batch_text", run_with({"--min-batch-ms", "fast"}), "", "", 2, "'fast' is not a number"},
    {"worker_timeout_huge", run_with({"--worker-timeout", "1e300"}), "", "", 2, "allowed: a number from 0 to 604800 s"},
    {"worker_timeout_inf", run_with({"--worker-timeout", "inf"}), "", "", 2, "allowed: a number from 0 to 604800 s"},
    {"seed_negative", run_with({"--seed", "-1"}), "", "", 2, "'-1' is not a whole number"},
    {"seed_too_long", run_with({"--seed", "123456789012345678901"}), "", "", 2, "is not a whole number"},
    {"size_empty_item", run_with({"--matrix", "quick", "--size", "64,,4096"}, false), "", "", 2,
     "option --size: an empty item in the list"},
    {"size_twice", run_with({"--matrix", "quick", "--size", "64,64"}, false), "", "", 2,
     "option --size: '64' is listed twice"},
    {"size_negative", run_with({"--matrix", "quick", "--size", "-5"}, false), "", "", 2, "'-5' is not a whole number"},
    {"size_float", run_with({"--matrix", "quick", "--size", "1e3"}, false), "", "", 2, "'1e3' is not a whole number"},
    {"size_zero", run_with({"--matrix", "quick", "--size", "0"}, false), "", "", 2, "size 0 is out of range"},
    {"live_zero", run_with({"--live", "0"}), "", "", 2, "--live"},
    {"align_not_power", run_with({"--align", "48"}), "", "", 2, "alignment 48 is not a power of two"},
    {"align_pair_bad", run_with({"--align", "3:4"}), "", "", 2, "not a power of two"},
    {"cpu_not_allowed", run_with({"--cpu", "1023"}), "", "", 2, "--cpu 1023: not a CPU this process may use (allowed:"},
    {"cpu_negative", run_with({"--cpu", "-1"}), "", "", 2,
     "--cpu: '-1' is not a whole number (allowed: a whole number from 0 to 1023"},
    {"cpu_huge", run_with({"--cpu", "99999999"}), "", "", 2,
     "--cpu: 99999999 is out of range (allowed: a whole number from 0 to 1023"},
    {"cpu_with_no_pin", run_with({"--cpu", "0", "--no-pin"}), "", "", 2, "excludes"},
    {"backend_unknown", run_with({"--backend", "ptmalloc3"}), "", "", 2, "unknown backend 'ptmalloc3' (allowed:"},
    {"backend_twice", run_with({"--backend", "system,system"}), "", "", 2, "'system' is listed twice"},
    {"workload_unknown", run_with({"--workload", "shrink"}), "", "", 2, "unknown workload 'shrink' (allowed:"},
    {"policy_unknown", run_with({"--policy", "sloppy"}), "", "", 2, "allowed: exact, padded"},
    {"measure_unknown", run_with({"--measure", "joules"}), "", "", 2, "unknown measure 'joules' (allowed: time"},
    {"max_rounds_without_until_interval", run_with({"--max-rounds", "9"}), "", "", 2,
     "--max-rounds: it caps --until-interval's (or --budget's) rounds"},
    {"max_rounds_below_processes", run_with({"--until-interval", "2", "--processes", "5", "--max-rounds", "3"}), "", "",
     2, "--max-rounds: 3 is below the 5 rounds every cell gets first"},
    {"until_interval_zero", run_with({"--until-interval", "0"}), "", "", 2, "--until-interval"},
    {"until_interval_instructions", run_with({"--until-interval", "2", "--measure", "instructions"}), "", "", 2,
     "--until-interval: --measure instructions repeats its counts exactly"},
    {"until_interval_process_interleave",
     compare_with("backend=system", "backend=system", {"--until-interval", "2", "--interleave", "process"}), "", "", 2,
     "allowed with --until-interval: --interleave batch or cell"},
    {"budget_without_unit", compare_with("backend=system", "backend=system", {"--budget", "600"}), "", "", 2,
     "'600' is not a duration from 1s to 168h (allowed: a number with s, m or h: 90s, 10m, 1.5h)"},
    {"budget_negative", compare_with("backend=system", "backend=system", {"--budget", "-5m"}), "", "", 2,
     "is not a duration"},
    {"budget_too_short", compare_with("backend=system", "backend=system", {"--budget", "0.5s"}), "", "", 2,
     "'0.5s' is not a duration from 1s"},
    {"budget_text_after", compare_with("backend=system", "backend=system", {"--budget", "10m5"}), "", "", 2,
     "'10m5' is not a duration"},
    {"budget_run_without_target", run_with({"--budget", "10m"}), "", "", 2,
     "--budget: it bounds the rounds added toward an interval's width; give --until-interval PCT too"},
    {"budget_instructions",
     compare_with("backend=system", "backend=system", {"--budget", "10m", "--measure", "instructions"}), "", "", 2,
     "--budget: --measure instructions repeats its counts exactly"},
    {"order_unknown", run_with({"--order", "random"}), "", "", 2, "--order"},
    {"format_unknown", run_with({"--format", "xml"}), "", "", 2, "xml"},
    {"entry_unknown", run_with({"--entry", "fastest"}), "", "", 2, "fastest"},
    {"entry_not_offered", run_with({"--backend", "tcmalloc", "--entry", "rust"}), "", "", 2, "rust"},
    // Names that become paths.
    {"save_baseline_empty", run_with({"--save-baseline", ""}), "", "", 2, "--save-baseline '': a name is 1 to 100"},
    {"save_baseline_escape", run_with({"--save-baseline", "../../elsewhere"}), "", "", 2,
     "--save-baseline '../../elsewhere'"},
    {"save_baseline_hidden", run_with({"--save-baseline", ".hidden"}), "", "", 2, "not starting with '.' or '-'"},
    {"save_baseline_space", run_with({"--save-baseline", "my baseline"}), "", "", 2, "a name is 1 to 100"},
    {"save_noise_escape",
     {"calibrate", "--save-noise", "../../../elsewhere", "--out", "@OUT@"},
     "",
     "",
     2,
     "--save-noise '../../../elsewhere': a name is"},
    {"save_noise_empty", {"calibrate", "--save-noise", "", "--out", "@OUT@"}, "", "", 2, "--save-noise '': a name is"},
    {"calibrate_one_run", {"calibrate", "--save-noise", "x", "--runs", "1", "--out", "@OUT@"}, "", "", 2, "--runs"},
    // Commands and resumption.
    {"unknown_command", {"frobnicate"}, "", "", 2, "unknown command 'frobnicate' (allowed: run, compare"},
    {"resume_nothing_there", {"run", "--resume", "@DIR@/none"}, "", "", 2, "results.json"},
    {"resume_with_options", {"run", "--resume", "@DIR@", "--samples", "3"}, "", "", 2, "takes no other options"},
    {"resume_complete_run", {"run", "--resume", "@FILEDIR@"}, results_json("[]"), "", 2, "that run is complete"},
    {"resume_other_command",
     {"compare", "--resume", "@FILEDIR@"},
     replaced(results_json("[]"), R"("complete": true)", R"("complete": false)"),
     "",
     2,
     "holds a run of 'abench run'"},
    {"resume_not_results", {"run", "--resume", "@FILEDIR@"}, "[1, 2]", "", 2, "not an abench results file"},
    // Matrix files.
    {"matrix_missing", run_with({"--matrix", "nonexistent"}, false), "", "", 2, "available matrices:"},
    {"matrix_not_json", matrix_file_run(), "{ \"backends\": [\"system\"],\n  oops }", "", 2,
     "malformed JSON at line 2, column 3"},
    {"matrix_empty_file", matrix_file_run(), "", "", 2, "malformed JSON"},
    {"matrix_array", matrix_file_run(), "[]", "", 2, "a matrix must be a JSON object"},
    {"matrix_duplicate_key", matrix_file_run(), R"({"sizes": [64], "sizes": [128]})", "", 2,
     "field 'sizes' appears twice"},
    {"matrix_too_deep", matrix_file_run(), std::string(100000, '['), "", 2, "more than 64 levels deep"},
    {"matrix_number_overflow", matrix_file_run(), matrix_with(R"("protocol": {"samples": 1e400})"), "", 2,
     "out of range"},
    {"matrix_unknown_field", matrix_file_run(), matrix_with(R"("colour": "blue")"), "", 2, "unknown field 'colour'"},
    {"matrix_size_twice", matrix_file_run(), replaced(matrix_with(""), "[64]", "[64, 64]"), "", 2, "twice"},
    {"matrix_sizes_empty", matrix_file_run(), replaced(matrix_with(""), "[64]", "[]"), "", 2, "sizes"},
    {"matrix_size_text", matrix_file_run(), replaced(matrix_with(""), "[64]", R"(["64"])"), "", 2, "sizes[0]"},
    {"matrix_size_fraction", matrix_file_run(), replaced(matrix_with(""), "[64]", "[1.5]"), "", 2, "sizes[0]"},
    {"matrix_size_negative", matrix_file_run(), replaced(matrix_with(""), "[64]", "[-1]"), "", 2, "sizes[0]"},
    {"matrix_alignment_bad", matrix_file_run(),
     replaced(matrix_with(""), "\"alignments\": [1]", "\"alignments\": [24]"), "", 2,
     "field 'alignments[0]': alignment 24 is not a power of two"},
    {"matrix_live_zero", matrix_file_run(), replaced(matrix_with(""), "\"live\": [1]", "\"live\": [0]"), "", 2,
     "live[0]"},
    {"matrix_backend_unknown", matrix_file_run(), replaced(matrix_with(""), "[\"system\"]", "[\"nosuch\"]"), "", 2,
     "unknown backend 'nosuch'"},
    {"matrix_workload_unknown", matrix_file_run(), replaced(matrix_with(""), "[\"allocate\"]", "[\"shrink\"]"), "", 2,
     "unknown workload 'shrink'"},
    {"matrix_policy_number", matrix_file_run(), replaced(matrix_with(""), "[\"exact\"]", "[1]"), "", 2, "policies[0]"},
    {"matrix_samples_zero", matrix_file_run(), matrix_with(R"("protocol": {"samples": 0})"), "", 2, "samples"},
    {"matrix_batch_text", matrix_file_run(), matrix_with(R"("protocol": {"min_batch_ms": "fast"})"), "", 2,
     "min_batch_ms"},
    {"matrix_timeout_negative", matrix_file_run(), matrix_with(R"("protocol": {"worker_timeout_s": -1})"), "", 2,
     "worker_timeout_s"},
    {"matrix_protocol_unknown", matrix_file_run(), matrix_with(R"("protocol": {"speed": 1})"), "", 2, "speed"},
    {"matrix_entry_unknown", matrix_file_run(), matrix_with(R"("entry": "fastest")"), "", 2, "fastest"},
    {"matrix_is_directory", run_with({"--matrix", "@DIR@/"}, false), "", "", 2, "is a directory"},
    {"matrix_is_device", run_with({"--matrix", "/dev/zero"}, false), "", "", 2, "not a regular file"},
    {"matrix_name_with_space", run_with({"--matrix", "@ROOT@/my matrix.json"}, false), "", "", 2, "a name is 1 to 100"},
    // Variant specs.
    {"variant_backend_unknown", compare_with("backend=nosuch", "backend=system"), "", "", 2,
     "unknown backend 'nosuch'"},
    {"variant_policy_unknown", compare_with("policy=sloppy", "backend=system"), "", "", 2, "sloppy"},
    {"variant_key_unknown", compare_with("colour=blue", "backend=system"), "", "", 2, "colour"},
    {"variant_plugin_missing", compare_with("plugin=/nonexistent/plugin.so", "backend=system"), "", "", 2,
     "/nonexistent/plugin.so"},
    {"variant_plugin_wrong_abi",
     compare_with(std::string("plugin=") + testing::built::kWrongAbiPlugin, "backend=system"), "", "", 2, "ABI"},
    {"variant_native_with_preload", compare_with("preload=/lib/x.so,entry=native", "backend=system"), "", "", 2,
     "native"},
    {"variant_empty", compare_with("", "backend=system"), "", "", 2, "--baseline: empty variant"},
    {"variant_env_without_value", compare_with("env=FOO", "backend=system"), "", "", 2, "env needs KEY=VALUE"},
    {"variant_label_twice", compare_with("backend=system,label=a,label=b", "backend=system"), "", "", 2,
     "label= given twice"},
    {"variant_backend_twice", compare_with("backend=system,backend=jemalloc", "backend=system"), "", "", 2,
     "backend= given twice"},
    {"variant_env_twice", compare_with("env=MALLOC_ARENA_MAX=1,env=MALLOC_ARENA_MAX=2", "backend=system"), "", "", 2,
     "env MALLOC_ARENA_MAX given twice"},
    {"variant_label_latin1", compare_with("backend=system,label=caf\xe9", "backend=system"), "", "", 2,
     "option --baseline: its value is not valid UTF-8 (byte 0xE9 at"},
    {"option_value_latin1", compare_with("backend=system", "backend=system", {"--out", "/tmp/r\xe9sultats"}), "", "", 2,
     "option --out: its value is not valid UTF-8"},
    {"option_joined_value_latin1", compare_with("backend=system", "backend=system", {"--out=/tmp/\xff"}), "", "", 2,
     "option --out: its value is not valid UTF-8"},
    {"variant_exe_missing", compare_with("exe=/nonexistent/worker", "backend=system"), "", "", 2,
     "worker executable '/nonexistent/worker' does not exist"},
    {"compare_confidence_range", compare_with("backend=system", "backend=system", {"--confidence", "2"}), "", "", 2,
     "--confidence"},
    {"compare_min_effect_range", compare_with("backend=system", "backend=system", {"--min-effect", "-1"}), "", "", 2,
     "--min-effect"},
    // Gate input: results, gate and noise files.
    {"gate_baseline_missing",
     {"gate", "--baseline", "no-such-baseline", "--out", "@OUT@"},
     "",
     "",
     2,
     "no stored baseline 'no-such-baseline'"},
    {"gate_not_results", gate_files(), R"({"schema": "something.else"})", "", 2, "not an abench results file"},
    {"gate_results_not_json", gate_files(), "{", "", 2, "malformed JSON"},
    {"gate_results_size_fraction", gate_files(),
     results_json("[" + replaced(std::string(kCell), "\"size\": 64", "\"size\": 1.5") + "]"), "", 2,
     "field 'cells[0].size': 1.5 is not"},
    {"gate_results_size_huge", gate_files(),
     results_json("[" + replaced(std::string(kCell), "\"size\": 64", "\"size\": 1e300") + "]"), "", 2,
     "field 'cells[0].size'"},
    {"gate_results_number_overflow", gate_files(),
     results_json("[" + replaced(std::string(kCell), "[10, 11, 12]", "[1e400]") + "]"), "", 2, "out of range"},
    {"gate_results_samples_text", gate_files(),
     results_json("[" + replaced(std::string(kCell), "[10, 11, 12]", R"(["ten"])") + "]"), "", 2, "malformed results"},
    {"gate_results_process_without_samples", gate_files(),
     results_json("[" + replaced(std::string(kCell), "[10, 11, 12]", "[]") + "]"), "", 2,
     "field 'cells[0].processes[0].samples_ns_per_op' is empty"},
    {"gate_results_type_names_the_field", gate_files(),
     results_json("[" + replaced(std::string(kCell), R"("status": "ok")", R"("status": 7)") + "]"), "", 2,
     "field 'cells[0].status' must be a string"},
    {"noise_type_names_the_field", gate_files({"--noise", "@FILE2@"}), results_json("[" + kCell + "]"),
     R"({"schema": "abench.noise", "cells": {"system/exact/allocate/64/1:256/1": "small"}})", 2,
     "field 'cells.system/exact/allocate/64/1:256/1' is \"small\""},
    {"noise_floor_huge", gate_files({"--noise", "@FILE2@"}), results_json("[" + kCell + "]"),
     R"({"schema": "abench.noise", "cells": {"system/exact/allocate/64/1:256/1": 1e300}})", 2,
     "a noise floor is a fraction from 0 to 10"},
    {"gate_results_duplicate_key", gate_files(), results_json("[]", "quick", R"("run_id": "twice",)"), "", 2,
     "appears twice"},
    {"gate_no_cells", gate_files(), results_json("[]"), "", 3, "not judged"},
    {"gate_zero_figures", gate_files(),
     results_json("[" + replaced(std::string(kCell), "[10, 11, 12]", "[0, 0, 0]") + "]"), "", 3,
     "only positive finite figures"},
    {"gate_negative_figures", gate_files(),
     results_json("[" + replaced(std::string(kCell), "[10, 11, 12]", "[-5, -6, -7]") + "]"), "", 2,
     "field 'cells[0].processes[0].samples_ns_per_op[0]' must be a finite number, not negative"},
    {"gate_file_bad_threshold", gate_files({"--gate-file", "@FILE2@"}), results_json("[" + kCell + "]"),
     R"({"threshold_percent": "five"})", 2, "threshold_percent"},
    {"gate_file_unknown_field", gate_files({"--gate-file", "@FILE2@"}), results_json("[" + kCell + "]"),
     R"({"threshold": 5})", 2, "unknown field 'threshold'"},
    {"gate_file_threshold_range", gate_files({"--gate-file", "@FILE2@"}), results_json("[" + kCell + "]"),
     R"({"threshold_percent": 5000})", 2, "from 0 to 1000"},
    {"gate_file_many_stars", gate_files({"--gate-file", "@FILE2@"}), results_json("[" + kCell + "]"),
     R"({"cells": [{"match": "********************************x", "threshold_percent": 5}]})", 3, "not judged"},
    {"gate_noise_not_noise", gate_files({"--noise", "@FILE2@"}), results_json("[" + kCell + "]"), R"({"cells": {}})", 2,
     "not an abench noise file"},
    {"gate_threshold_negative", gate_files({"--threshold", "-1"}), results_json("[" + kCell + "]"), "", 2,
     "--threshold"},
    {"gate_matrix_name_escapes",
     {"gate", "--baseline", "@FILE@"},
     results_json("[" + kCell + "]", "../../../evil"),
     "",
     2,
     "field 'matrix.name' '../../../evil': a name is"},
};

class MalformedInput : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedInput, IsRefusedWithTheRightCodeAndMessageAndLeavesNothing) {
  const Malformed& c = GetParam();
  testing::TempDir dir;
  dir.write("my matrix.json", matrix_with(""));  // a valid matrix whose name cannot name a directory
  const std::string file = dir.write("input.json", c.file);
  const std::string file2 = dir.write("input2.json", c.file2);
  auto fresh = dir.path() / "fresh";
  std::filesystem::create_directories(fresh);
  auto file_dir = dir.path() / "filedir";
  std::filesystem::create_directories(file_dir);
  std::filesystem::copy_file(file, file_dir / "results.json");
  const auto out = dir.path() / "out";
  std::vector<std::string> args;
  for (std::string a : c.args) {
    auto put = [&](const std::string& token, const std::string& value) {
      for (std::size_t at; (at = a.find(token)) != std::string::npos;) a.replace(at, token.size(), value);
    };
    put("@FILE2@", file2);
    put("@FILEDIR@", file_dir.string());
    put("@FILE@", file);
    put("@OUT@", out.string());
    put("@DIR@", fresh.string());
    put("@ROOT@", dir.path().string());
    args.push_back(a);
  }
  const CliResult r = run_cli(args);
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err << r.out;
  const std::string said = r.err + r.out;
  EXPECT_NE(said.find(c.must_mention), std::string::npos) << "expected: " << c.must_mention << "\ngot: " << said;
  EXPECT_EQ(said.find("internal error"), std::string::npos) << said;
  if (c.exit_code == 2) {
    EXPECT_FALSE(std::filesystem::exists(out)) << "output written";
  }
  EXPECT_TRUE(std::filesystem::is_empty(fresh));
  EXPECT_LT(said.size(), 4000u) << "the message echoes the input";
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedInput, ::testing::ValuesIn(kCorpus),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace abench
