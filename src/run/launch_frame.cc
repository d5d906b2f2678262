#include "src/run/launch_frame.h"

#include <sys/personality.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "src/plan/protocol_rules.h"
#include "src/util/errors.h"

extern char** environ;

namespace abench {
namespace {

// Room for abench's own variables (src/run/worker_spawn.cc: the protocol and pace descriptors,
// the parent's pid) and for valgrind's arguments besides the paths counted one by one.
constexpr std::size_t kLauncherBytes = 256, kLauncherEntries = 4;
constexpr std::size_t kValgrindBytes = 512, kValgrindEntries = 12;
// A pad is ABENCH_FRAME_PADnnn=..., one per entry missing.
constexpr std::string_view kPadName = "ABENCH_FRAME_PAD";
constexpr std::size_t kPadEntryBytes = kPadName.size() + 3 + 1 + 1;  // digits, '=', the terminating nul
constexpr std::size_t kMaxPadEntries = 1000;

std::size_t bytes_of(std::string_view s) { return s.size() + 1; }

}  // namespace

FrameSize frame_for(const std::vector<Variant>& variants, const RunProtocol& protocol,
                    const std::function<std::string(const Variant&, WorkerMode)>& worker_path,
                    const std::string& valgrind, const std::string& callgrind_dir, const CopiedFiles& copies) {
  std::size_t bytes = kLauncherBytes, entries = kLauncherEntries;
  for (char** e = environ; *e != nullptr; ++e) bytes += bytes_of(*e), ++entries;
  std::size_t variant_bytes = 0, variant_entries = 0;
  const std::string& fresh_copy_dir = copies.dir;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    const Variant& v = variants[i];
    std::size_t b = 0, n = 0;
    for (const auto& [key, value] : v.env) b += key.size() + value.size() + 2, ++n;
    if (!v.preload.empty()) b += 2 * (v.preload.size() + 64), n += 2;
    std::size_t path = 0;
    for (WorkerMode mode : {WorkerMode::time, WorkerMode::count}) path = std::max(path, worker_path(v, mode).size());
    if (!fresh_copy_dir.empty()) path = std::max(path, fresh_copy_dir.size() + 12);  // DIR/wNNNNNNNNNN
    if (const std::string library = i < copies.libraries.size() ? copies.libraries[i] : ""; !library.empty()) {
      // LD_LIBRARY_PATH=DIR/wNNNNNNNNNN.lib:what it held, or LD_PRELOAD=DIR/wNNNNNNNNNN.lib/NAME
      // (a preload's real name, which may be longer than the name it is given by).
      const char* inherited = std::getenv("LD_LIBRARY_PATH");
      b += fresh_copy_dir.size() + 64 + library.size() + 256 + (inherited ? bytes_of(inherited) : 0), ++n;
      for (const auto& [key, value] : v.env)
        if (key == "LD_LIBRARY_PATH") b += value.size();
    }
    b += 2 * bytes_of(std::string(path, 'x')) + bytes_of(valgrind) + bytes_of(v.plugin);  // path as argv[0], exec name
    variant_bytes = std::max(variant_bytes, b), variant_entries = std::max(variant_entries, n + 1);
  }
  bytes += variant_bytes, entries += variant_entries;
  if (!callgrind_dir.empty() && row_of(protocol.measure).callgrind)
    bytes += kValgrindBytes + 2 * bytes_of(callgrind_dir), entries += kValgrindEntries;
  // Whole pages, with room for the pads' names.
  entries += 1;
  bytes += entries * kPadEntryBytes;
  return {(bytes + 4095) / 4096 * 4096, entries};
}

bool runs_fresh_copy(const RunProtocol& protocol, WorkerMode mode) {
  return protocol.layout == LayoutMode::drawn && mode == WorkerMode::time && !row_of(protocol.measure).callgrind;
}

std::optional<ProcessLayout> layout_for(const RunProtocol& protocol, int round, WorkerMode mode) {
  if (protocol.layout == LayoutMode::kernel) return std::nullopt;
  ProcessLayout layout;
  if (runs_fresh_copy(protocol, mode)) {  // the workers whose layout is drawn
    // --layouts K: the K layouts in turn, each drawn as its round would be.
    if (protocol.layouts > 0) layout.index = round % protocol.layouts;
    const int draw = protocol.layouts > 0 ? layout.index : round;
    layout.seed = mix_seed(protocol.seed ^ mix_seed(static_cast<std::uint64_t>(draw) + 1));
    layout.stack_shift = static_cast<int>(layout.seed % 256) * 16;
  }
  return layout;
}

FreshCopies::FreshCopies(const RunProtocol& protocol) {
  if (!runs_fresh_copy(protocol, WorkerMode::time)) return;
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/abench-workers-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)
    throw EnvironmentError(
        fmt::format("{}: {} (where --layout drawn copies the workers it runs)", pattern, std::strerror(errno)));
  dir_ = pattern;
  struct statvfs fs {};
  if (statvfs(dir_.c_str(), &fs) == 0 && (fs.f_flag & ST_NOEXEC) != 0) {
    std::filesystem::remove(dir_);
    throw UsageError(fmt::format(
        "--layout drawn runs each timed worker from a fresh copy in {}, but it is on a file system mounted noexec: "
        "set TMPDIR to a directory that may hold executables, or measure with --layout fixed",
        std::filesystem::path(dir_).parent_path().string()));
  }
}

FreshCopies::~FreshCopies() {
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

void check_layout_allowed(const RunProtocol& protocol) {
  if (protocol.layout == LayoutMode::kernel) return;
  const int now = personality(0xffffffff);
  if (now < 0 || personality(static_cast<unsigned long>(now) | ADDR_NO_RANDOMIZE) < 0 ||
      (personality(0xffffffff) & ADDR_NO_RANDOMIZE) == 0) {
    const std::string why = std::strerror(errno);
    throw UsageError(
        fmt::format("--layout {}: this system does not let abench turn address randomisation off for its workers "
                    "(personality(ADDR_NO_RANDOMIZE): {}); --layout kernel measures at the kernel's own layouts",
                    protocol.layout == LayoutMode::drawn ? "drawn" : "fixed", why));
  }
  personality(static_cast<unsigned long>(now));
}

std::vector<std::string> frame_padding(const std::vector<std::string>& args, const std::vector<std::string>& env,
                                       const std::string& executable, const FrameSize& frame, int shift,
                                       std::string* error) {
  std::size_t bytes = bytes_of(executable), entries = args.size() + env.size();
  for (const auto* strings : {&args, &env})
    for (const std::string& s : *strings) bytes += bytes_of(s);
  const std::size_t want = frame.strings_bytes + static_cast<std::size_t>(std::max(shift, 0));
  const std::size_t pads = frame.entries > entries ? frame.entries - entries : 0;
  if (pads == 0 || pads > kMaxPadEntries || bytes + pads * kPadEntryBytes > want) {
    *error = fmt::format(
        "the worker's path, arguments and environment ({} bytes, {} entries) do not fit the run's frame ({} bytes, "
        "{} entries)",
        bytes, entries, want, frame.entries);
    return {};
  }
  std::vector<std::string> padding;
  for (std::size_t i = 0; i < pads; ++i) padding.push_back(fmt::format("{}{:03}=", kPadName, i));
  padding.back().append(want - bytes - pads * kPadEntryBytes, '.');
  return padding;
}

}  // namespace abench
