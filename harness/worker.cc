#include "harness/worker.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <optional>
#include <iostream>
#include <random>
#include <string>
#include <string_view>

#include "allocators/backend.h"
#include "allocators/backends.h"
#include "harness/build_info.h"
#include "harness/timed_loop.h"
#include "harness/cell_runner.h"
#include "harness/entry_functions.h"
#include "harness/count_runner.h"
#include "harness/counters.h"
#include "harness/instruction_counter.h"
#include "harness/perf_counters.h"
#include "harness/pinning.h"
#include "harness/plugin.h"

namespace abench {
namespace {

constexpr int kExitFatal = 3;

// The protocol's descriptor (ABENCH_PROTOCOL_FD, docs/protocol.md); stdout when run by
// hand. A plugin's printf goes to stdout, never here.
int g_protocol_fd = STDOUT_FILENO;

void open_protocol_channel() {
  const char* named = std::getenv("ABENCH_PROTOCOL_FD");
  if (named == nullptr) return;
  const int fd = std::atoi(named);
  if (fd > STDERR_FILENO && fcntl(fd, F_GETFD) >= 0) {
    fcntl(fd, F_SETFD, FD_CLOEXEC);  // not inherited by whatever a plugin starts
    g_protocol_fd = fd;
  }
}

// A worker must not outlive abench, even when abench is killed with SIGKILL.
void die_with_parent() {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  const char* parent = std::getenv("ABENCH_PARENT_PID");
  if (parent != nullptr && getppid() != static_cast<pid_t>(std::atol(parent))) _exit(3);  // it died already
}

void send_line(const char* line, std::size_t size) {
  for (std::size_t sent = 0; sent < size;) {
    const ssize_t n = write(g_protocol_fd, line + sent, size - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(3);  // abench is gone: nobody reads the results
    sent += static_cast<std::size_t>(n);
  }
}

void emit(const nlohmann::json& message) {
  const std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  send_line(line.data(), line.size());
}

int fatal(const std::string& error) {
  emit({{"type", "fatal"}, {"error", error}});
  std::fprintf(stderr, "abench worker: %s\n", error.c_str());
  return kExitFatal;
}

int g_current_cell = -1;

// Between warm-up and the first sample: formatted on the stack, so the allocator under
// test serves nothing here and its state is the one warm-up left.
// The cell's stretch seed: from the process's seed (the two sides of a compared pair share
// it) and what the cell measures, not its id (the two sides' cells have different ids), so a
// pair's k-th batches do the same work.
SamplerConfig sampler_for(const WorkerRequest& request, const CellSpec& cell) {
  SamplerConfig sampler = request.sampler;
  std::uint64_t what = static_cast<std::uint64_t>(cell.workload);
  for (std::uint64_t part : {std::uint64_t{cell.size}, std::uint64_t{cell.alignment.requested},
                             std::uint64_t{cell.alignment.preferred}, std::uint64_t{cell.live}})
    what = what * 1000003u + part;
  sampler.stretch_seed = request.seed ^ (what * 0x9e3779b97f4a7c15ull);
  return sampler;
}

void report_warmed_up(std::uint64_t batch_ns, std::uint64_t iterations, int samples) {
  char line[160];
  const int n = std::snprintf(
      line, sizeof line, "{\"type\":\"warm\",\"id\":%d,\"batch_ns\":%llu,\"iterations\":%llu,\"samples\":%d}\n",
      g_current_cell, static_cast<unsigned long long>(batch_ns), static_cast<unsigned long long>(iterations), samples);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof line) send_line(line, static_cast<std::size_t>(n));
}

// A paced worker's word from abench (ABENCH_PACE_FD): "warmup N\n" before its warm-up,
// "sample\n" before each sample. At end of file abench has let it go: it runs freely.
int g_pace_fd = -1;

void open_pace_channel() {
  const char* named = std::getenv("ABENCH_PACE_FD");
  if (named == nullptr) return;
  const int fd = std::atoi(named);
  if (fd > STDERR_FILENO && fcntl(fd, F_GETFD) >= 0) {
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    g_pace_fd = fd;
  }
}

// One line into a stack buffer, a byte at a time (nothing is allocated, nothing read ahead).
// Returns false once the channel is closed.
bool read_pace_line(char* line, std::size_t capacity) {
  std::size_t n = 0;
  for (;;) {
    char c = 0;
    const ssize_t got = read(g_pace_fd, &c, 1);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      close(g_pace_fd);
      g_pace_fd = -1;
      return false;
    }
    if (c == '\n') break;
    if (n + 1 < capacity) line[n++] = c;
  }
  line[n] = '\0';
  return true;
}

// The first word (or the channel's end: then it runs freely) also says the measured CPU
// is this worker's now: one that started up beside the pair before it moves there.
std::uint64_t wait_for_warmup() {
  char line[64];
  const bool told = g_pace_fd >= 0 && read_pace_line(line, sizeof line);
  if (const std::string problem = move_to_pinned_cpu(); !problem.empty()) _exit(fatal(problem));
  if (!told) return 0;
  unsigned long long iterations = 0;
  return std::sscanf(line, "warmup %llu", &iterations) == 1 ? iterations : 0;
}

void wait_for_sample() {
  char line[64];
  if (g_pace_fd >= 0) read_pace_line(line, sizeof line);
}

void report_sampled() {
  char line[64];
  const int n = std::snprintf(line, sizeof line, "{\"type\":\"sampled\",\"id\":%d}\n", g_current_cell);
  if (n > 0 && static_cast<std::size_t>(n) < sizeof line) send_line(line, static_cast<std::size_t>(n));
}

WorkerHello hello_from(const backend::Identity& id) {
  WorkerHello hello;
  hello.backend = id.name;
  hello.allocator_version = id.version;
  hello.malloc_object = id.malloc_object;
  hello.pid = static_cast<long>(getpid());
  hello.compiler = build_info().compiler;
  hello.cxx_flags = build_info().cxx_flags;
  hello.git_revision = build_info().git_revision;
  hello.timed_loop = timed_loop_identity();
  return hello;
}

// The interposer must see the allocations of code outside the harness, whichever library
// defines the helper: libc's strdup calls malloc, a preloaded mimalloc's calls mi_malloc.
// Each helper must count as exactly one request, and its free as one free.
std::string interposer_self_test() {
  struct Probe {
    const char* call;
    void* (*allocate)();
  };
  static const Probe probes[] = {
      {"strdup", [] { return static_cast<void*>(strdup("abench")); }},
      {"strndup", [] { return static_cast<void*>(strndup("abench", 3)); }},
      {"realpath(\".\", NULL)", [] { return static_cast<void*>(realpath(".", nullptr)); }},
      {"reallocarray(NULL, ...)", [] { return reallocarray(nullptr, 4, 8); }},
  };
  for (const Probe& probe : probes) {
    start_counting();
    void* block = probe.allocate();
    free(block);
    stop_counting();
    if (block == nullptr) return std::string("the counting self-test's ") + probe.call + " returned NULL";
    if (counters().requests != 1 || counters().frees != 1)
      return "the counting interposer saw " + std::to_string(counters().requests) + " requests and " +
             std::to_string(counters().frees) + " frees for one " + probe.call + " and free (expected 1 and 1)";
  }
  return "";
}

}  // namespace

std::vector<int> cell_order(const WorkerRequest& request) {
  std::vector<int> order;
  for (const CellSpec& cell : request.cells) order.push_back(cell.id);
  if (request.order == CellOrder::matrix) return order;
  std::mt19937_64 random(request.seed);
  for (std::size_t i = order.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(random() % i);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

namespace {

// The entry-point set the request names, if the backend offers it, else its default; a
// problem to refuse with, or "".
std::string choose_entry(const backend::Identity& identity, const WorkerRequest& request, EntrySet& entry) {
  const std::span<const EntrySet> offered = entry_sets_of(identity.name);
  entry = offered.front();
  if (request.entry_set.empty()) return "";
  const std::optional<EntrySet> asked = entry_set_named(request.entry_set);
  if (!asked || std::find(offered.begin(), offered.end(), *asked) == offered.end()) {
    std::string allowed;
    for (EntrySet set : offered) allowed += (allowed.empty() ? "" : ", ") + std::string(name_of(set));
    return "backend " + identity.name + " has no entry-point set '" + request.entry_set + "' (allowed: " + allowed +
           ")";
  }
  entry = *asked;
  return "";
}

// A timed worker never counts and a counting worker is never timed; what the request's
// measure needs must be here. A problem to refuse with, or "".
std::string check_mode(const backend::Identity& identity, const WorkerRequest& request) {
  const bool counting = counting_interposer_active();
  if (request.mode == WorkerMode::count && !counting)
    return "this is a timed worker and carries no counters; counts come from abench-counter-" + identity.name;
  if (request.mode == WorkerMode::time && counting)
    return "this is a counting worker, never timed; timings come from abench-worker-" + identity.name;
  if (counting)
    if (std::string problem = interposer_self_test(); !problem.empty()) return problem;
  if (request.mode == WorkerMode::time && row_of(request.measure).callgrind)
    if (std::string why = instruction_counting_unavailable(); !why.empty()) return "cannot count instructions: " + why;
  return "";
}

// Pinned where asked (now, or at abench's word), then the perf events of that CPU (on a
// big.LITTLE machine the PMU depends on the CPU), and the pace channel of a paced worker.
std::string place(WorkerRequest& request, WorkerHello& hello) {
  if (request.pin) {
    const PinResult pin = request.paced && request.pin_when_told ? pin_later_to(request.cpu) : pin_to_cpu(request.cpu);
    if (!pin.error.empty()) return pin.error;
    hello.pinned_cpu = pin.cpu;
  }
  if (request.mode == WorkerMode::time && row_of(request.measure).perf_events) {
    if (std::string why = perf_unavailable(request.measure); !why.empty())
      return std::string("--measure ") + name_of(request.measure) + ": not supported here: " + why;
    hello.perf_events = perf_events_here(request.measure).source;
  }
  request.sampler.on_warmed_up = report_warmed_up;
  if (request.paced) {
    open_pace_channel();
    if (g_pace_fd < 0) return "a paced request without a pace channel (ABENCH_PACE_FD)";
    request.sampler.wait_for_warmup = wait_for_warmup;
    request.sampler.wait_for_sample = wait_for_sample;
    request.sampler.after_sample = report_sampled;
  }
  return "";
}

// Each cell in the hello's order, a report (or counts) a cell, then "done".
void run_cells(const WorkerRequest& request, const WorkerHello& hello, const backend::Identity& identity,
               const LoadedPlugin* plugin, EntrySet entry) {
  for (int id : hello.order) {
    const CellSpec& cell =
        *std::find_if(request.cells.begin(), request.cells.end(), [id](const CellSpec& c) { return c.id == id; });
    g_current_cell = id;
    if (request.mode == WorkerMode::count) {
      emit(count_cell(cell, request.touch, plugin, entry));
    } else {
      CellReport report = run_cell(cell, sampler_for(request, cell), request.touch, identity.name.c_str(), plugin,
                                   request.measure, entry);
      if (worker_is_pinned()) report.cpu = current_cpu();  // where the samples ran, a moved worker's too
      emit(report);
    }
  }
  emit({{"type", "done"}});
}

}  // namespace

int worker_main(int argc, char** argv) {
  die_with_parent();
  open_protocol_channel();
  const backend::Identity identity = backend::identify();
  if (!identity.serves_malloc) return fatal("refusing to run: " + identity.problem);
  WorkerHello hello = hello_from(identity);
  hello.subject = "built-in buffer model";
  std::shared_ptr<LoadedPlugin> plugin;
  auto use_plugin = [&](const std::string& path) -> std::string {
    try {
      plugin = load_plugin(path);
    } catch (const std::exception& e) {
      return e.what();
    }
    hello.subject = std::string("plugin ") + plugin->plugin->name + " " + plugin->plugin->version + " (" +
                    (plugin->is_buffer() ? "buffer" : "allocator") + " subject) from " + path;
    return "";
  };
  if (argc > 1 && std::string_view(argv[1]) == "--self-check") {
    if (argc == 4 && std::string_view(argv[2]) == "--plugin") {
      if (std::string problem = use_plugin(argv[3]); !problem.empty()) return fatal(problem);
    } else if (argc != 2) {
      return fatal("usage: --self-check [--plugin PATH]");
    }
    emit(hello);
    return 0;
  }
  if (argc > 1) return fatal(std::string("unknown argument '") + argv[1] + "' (allowed: --self-check [--plugin PATH])");

  WorkerRequest request;
  try {
    std::string line;
    if (!std::getline(std::cin, line)) return fatal("no request on stdin");
    request = nlohmann::json::parse(line).get<WorkerRequest>();
  } catch (const std::exception& e) {
    return fatal(std::string("bad request: ") + e.what());
  }
  if (!request.plugin.empty())
    if (std::string problem = use_plugin(request.plugin); !problem.empty()) return fatal(problem);
  EntrySet entry{};
  if (std::string problem = choose_entry(identity, request, entry); !problem.empty()) return fatal(problem);
  hello.entry_set = name_of(entry);
  hello.entry_calls = entry_calls(entry);
  hello.entry_functions = resolve_entry_functions(entry_functions(entry));
  if (std::string problem = check_mode(identity, request); !problem.empty()) return fatal(problem);
  if (std::string problem = place(request, hello); !problem.empty()) return fatal(problem);
  hello.order = cell_order(request);
  emit(hello);
  run_cells(request, hello, identity, plugin.get(), entry);
  return 0;
}

}  // namespace abench
