// The readers of input from outside abench, each as a target that takes bytes (see
// reader_targets.h).
#include "tests/fuzz/reader_targets.h"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "harness/protocol.h"
#include "src/util/errors.h"
#include "src/verdict/gate.h"
#include "src/verdict/compare_file.h"
#include "src/verdict/gate_file.h"
#include "src/plan/matrix.h"
#include "src/run/orchestrator.h"
#include "src/results/noise_file.h"
#include "src/results/results_reader.h"
#include "src/results/results_writers.h"
#include "src/plan/variant.h"
#include "src/verdict/pairing.h"

namespace abench::fuzz {
namespace {

const std::vector<std::string> kBuilt{"system", "mimalloc", "jemalloc"};

// The readers take paths: each input goes through a file, as the user's would.
std::string as_file(const std::string& text) {
  struct File {
    std::string path = "/tmp/abench-fuzz-" + std::to_string(getpid()) + ".json";
    ~File() { unlink(path.c_str()); }
  };
  static const File file;
  std::ofstream(file.path, std::ios::binary | std::ios::trunc) << text;
  return file.path;
}

// Answers with the fuzzer's bytes, one protocol line per line of input.
class ScriptedLauncher : public WorkerLauncher {
 public:
  explicit ScriptedLauncher(const std::string& script) : script_(script) {}
  LaunchOutcome run(const LaunchRequest&, const ProtocolLineHandler& on_line) override {
    for (std::size_t start = 0; start < script_.size();) {
      const std::size_t end = std::min(script_.find('\n', start), script_.size());
      on_line(std::string_view(script_).substr(start, end - start));
      start = end + 1;
    }
    LaunchOutcome outcome;
    outcome.exit_code = script_.empty() ? 0 : static_cast<unsigned char>(script_[0]) % 4;
    outcome.stderr_tail = script_.substr(0, 64);
    return outcome;
  }

 private:
  std::string script_;
};

// The run of a small plan (4 cells, ids 0-3, 2 processes, counting runs or not) as the
// launcher answers it.
RunResults run_answered_by(WorkerLauncher& launcher, bool counts) {
  Matrix m;
  m.path = "fuzz.json";
  m.name = "fuzz";
  m.backends = {"system"};
  m.policies = {Policy::exact};
  m.workloads = {Workload::allocate, Workload::grow};
  m.sizes = {64};
  m.alignments = {{1, 256}};
  m.lives = {1, 64};
  m.protocol.processes = 2;
  m.protocol.samples = 3;
  m.protocol.counts = counts;
  RunResults results;
  results.matrix = m;
  results.protocol = m.protocol;
  results.plan = make_plan(m, 1);
  OrchestratorHooks hooks;
  hooks.worker_path = [](const Variant& v, WorkerMode) { return v.backend; };
  run_plan(results, launcher, hooks);
  results.complete = true;
  return results;
}

// Answers each request as a worker that measured every cell it was asked for.
class AnsweringLauncher : public WorkerLauncher {
 public:
  LaunchOutcome run(const LaunchRequest& request, const ProtocolLineHandler& on_line) override {
    const auto asked = nlohmann::json::parse(request.stdin_text).get<WorkerRequest>();
    WorkerHello hello;
    hello.backend = "system";
    hello.allocator_version = "glibc 2.36";
    hello.malloc_object = "libc.so.6";
    hello.pid = 42;
    for (const auto& c : asked.cells) hello.order.push_back(c.id);
    on_line(nlohmann::json(hello).dump());
    for (const auto& c : asked.cells) {
      CellReport r;
      r.id = c.id;
      r.ok = true;
      r.iterations = 1000;
      r.ops_per_iteration = 1;
      r.sample_iterations = std::vector<std::uint64_t>(asked.sampler.samples, 1000);
      r.sample_ns_per_op = std::vector<double>(asked.sampler.samples, 10.5);
      on_line(nlohmann::json(r).dump());
    }
    on_line(R"({"type":"done"})");
    return {};
  }
};

void worker_protocol(const std::string& text) {
  ScriptedLauncher launcher(text);
  const RunResults results = run_answered_by(launcher, /*counts=*/true);
  (void)results_to_json(results).dump(2, ' ', false, nlohmann::json::error_handler_t::strict);  // valid UTF-8 only
  (void)results_to_csv(results);
}

void results_file(const std::string& text) {
  const std::string path = as_file(text);
  const RunResults r = load_results(path);
  GateVerdict verdict = evaluate_gate(pair_sides(r), GateRules{}, {}, VerdictSettings{});
  if (r.plan.partner.empty())
    verdict = evaluate_gate(pair_results(r, path, r, path), GateRules{}, {}, VerdictSettings{});
  (void)results_to_json(r).dump(2, ' ', false, nlohmann::json::error_handler_t::strict);
  (void)gate_json(verdict).dump();
  (void)gate_markdown(verdict);
}

void gate_file(const std::string& text) {
  const GateRules rules = load_gate_rules(as_file(text));
  for (const auto& [pattern, threshold] : rules.cell_thresholds)
    (void)glob_match(pattern, "system/exact/allocate/65536/4096:4096/64");
}

}  // namespace

std::string results_file_of_a_small_run() {
  AnsweringLauncher launcher;
  return results_to_json(run_answered_by(launcher, /*counts=*/false)).dump(2);
}

const std::map<std::string, Target>& reader_targets() {
  static const std::map<std::string, Target> targets{
      {"json", [](const std::string& t) { (void)read_json_file(as_file(t), "the fuzzed file"); }},
      {"matrix", [](const std::string& t) { (void)load_matrix(as_file(t), kBuilt); }},
      {"variant",
       [](const std::string& t) {
         static const Matrix quick = load_matrix("quick", kBuilt);
         const VariantSpec spec = parse_variant_spec(t, "--baseline", kBuilt);
         (void)expand_variant_spec(spec, quick);
       }},
      {"gate", gate_file},
      {"results", results_file},
      {"noise", [](const std::string& t) { (void)load_noise_file(as_file(t)); }},
      {"gate-verdict",
       [](const std::string& t) {
         const std::string path = as_file(t);
         const GateVerdict v = gate_verdict_from_json(read_json_file(path, "the fuzzed file"), path);
         (void)gate_markdown(v);
         (void)gate_json(v).dump();
       }},
      {"compare",
       [](const std::string& t) {
         const Comparison c = load_comparison(as_file(t));
         (void)comparison_markdown(c);
         (void)comparison_csv(c);
         (void)comparison_json(c).dump();
       }},
      {"protocol", worker_protocol},
  };
  return targets;
}

}  // namespace abench::fuzz
