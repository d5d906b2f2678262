#include "src/run/process_copy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace abench {
namespace {

// A copy of `from` at `to`, executable by its owner alone. Both descriptors close on exec; the
// caller copies while no other thread spawns, so no child holds it open for writing when it is
// executed (ETXTBSY). "" or why not.
std::string copy_file(const std::string& from, const std::string& to) {
  const int in = open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return from + ": " + std::strerror(errno);
  const int out = open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0700);
  std::string why = out < 0 ? to + ": " + std::strerror(errno) : "";
  char chunk[1 << 16];
  for (ssize_t n; why.empty() && (n = read(in, chunk, sizeof chunk)) != 0;) {
    if (n < 0 || write(out, chunk, static_cast<std::size_t>(n)) != n) why = to + ": " + std::strerror(errno);
  }
  close(in);
  if (out >= 0 && close(out) != 0 && why.empty()) why = to + ": " + std::strerror(errno);
  if (!why.empty()) unlink(to.c_str());
  return why;
}

using Environment = std::vector<std::pair<std::string, std::string>>;

Environment::iterator entry_named(Environment& env, std::string_view key) {
  return std::find_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == key; });
}

// The name the library's copy must have: a preloaded one keeps its real file's name (the
// worker checks malloc's object by it, allocators/malloc_identity.h); a linked one the name
// it was loaded by, which the dynamic linker looks for in LD_LIBRARY_PATH.
std::string copy_name(const std::string& library, bool preloaded) {
  std::error_code ec;
  const auto real = preloaded ? std::filesystem::canonical(library, ec) : std::filesystem::path();
  return (preloaded && !ec ? real : std::filesystem::path(library)).filename().string();
}

}  // namespace

std::string shared_copy_name(std::size_t variant, int layout) { return fmt::format("v{:04}-{:05}", variant, layout); }

std::string make_process_copy(const LaunchRequest& request, unsigned long number, ProcessCopy& copy) {
  copy = ProcessCopy{};
  copy.environment = request.environment;
  const bool shared = !request.shared_copy_name.empty();
  copy.executable = request.fresh_copy_dir + "/" + (shared ? request.shared_copy_name : fmt::format("w{:010}", number));
  const std::string dir = copy.executable + ".lib";
  const auto preload = entry_named(copy.environment, "LD_PRELOAD");
  const bool preloaded = preload != copy.environment.end() && preload->second == request.fresh_copy_library;
  const std::string library =
      request.fresh_copy_library.empty() ? "" : dir + "/" + copy_name(request.fresh_copy_library, preloaded);
  // A layout's copies exist once its first worker made them (spawns take turns): made whole,
  // or, when that failed, not at all.
  struct stat made {};
  const bool reused = shared && lstat(copy.executable.c_str(), &made) == 0 && S_ISREG(made.st_mode);
  std::string why = reused ? "" : copy_file(request.executable, copy.executable);
  if (!why.empty()) return why;
  if (!reused) copy.made.push_back(copy.executable);
  if (!library.empty() && !reused) {
    if (mkdir(dir.c_str(), 0700) != 0) why = dir + ": " + std::strerror(errno);
    if (why.empty()) why = copy_file(request.fresh_copy_library, library);
    if (!why.empty()) {
      remove_process_copy(copy.made);
      rmdir(dir.c_str());
      return why;
    }
    copy.made.insert(copy.made.begin(), library);
    copy.made.push_back(dir);
  }
  if (shared) copy.made.clear();  // kept for the layout's other workers; the run's directory goes at its end
  if (library.empty()) return "";
  if (preloaded) {
    preload->second = library;
  } else if (auto path = entry_named(copy.environment, "LD_LIBRARY_PATH"); path != copy.environment.end()) {
    path->second = dir + ":" + path->second;
  } else {
    const char* inherited = std::getenv("LD_LIBRARY_PATH");
    copy.environment.emplace_back("LD_LIBRARY_PATH", inherited && *inherited ? dir + ":" + inherited : dir);
  }
  return "";
}

void remove_process_copy(const std::vector<std::string>& made) {
  for (const std::string& path : made) remove(path.c_str());
}

void name_files_copied_from(WorkerHello& hello, const std::string& copy_dir,
                            const std::function<std::string()>& executable, const std::string& library) {
  const auto original = [&](std::string& path) {
    if (!path.starts_with(copy_dir + "/")) return;
    path = path.find(".lib/", copy_dir.size()) != std::string::npos && !library.empty() ? library : executable();
  };
  original(hello.malloc_object);
  for (EntryFunction& f : hello.entry_functions) original(f.object);
}

}  // namespace abench
