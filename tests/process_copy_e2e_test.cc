// A timed worker's own copies (src/run/process_copy.h), seen from the real worker: its
// --self-check reports which file serves its malloc. Built against a library found through its
// rpath (backend `linked`, as scripts/build-worker builds a from-source allocator) and with a
// preloaded library, the worker's malloc must come from the copy made for it alone, the
// worker must accept the byte-identical copy as the library it was built against, and the
// copies must be gone once it has ended.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "src/run/preflight.h"
#include "src/run/process_launcher.h"
#include "src/run/worker_registry.h"
#include "tests/built_paths.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

// The self-check's hello, from fresh copies in `copies` of the worker and `library`.
nlohmann::json hello_from_copies(const Variant& variant, const std::string& library,
                                 const std::filesystem::path& copies) {
  LaunchRequest request{worker_path(variant, WorkerMode::time), {"--self-check"}, variant.env, "", 30};
  if (!variant.preload.empty())
    request.environment.insert(request.environment.end(),
                               {{"LD_PRELOAD", variant.preload}, {"ABENCH_EXPECT_MALLOC_FROM", variant.preload}});
  request.fresh_copy_dir = copies.string();
  request.fresh_copy_library = library;
  std::string first;
  ProcessLauncher launcher;
  const LaunchOutcome o = launcher.run(request, [&](std::string_view line) {
    if (first.empty()) first = line;
    return 0.0;
  });
  EXPECT_EQ(o.exit_code, 0) << o.start_error << o.stderr_tail << first;
  EXPECT_TRUE(std::filesystem::is_empty(copies)) << "the copies outlived their worker";
  return first.empty() ? nlohmann::json() : nlohmann::json::parse(first);
}

void expect_served_by_its_copy(const Variant& variant, const std::string& library_name) {
  testing::TempDir dir;
  ProcessLauncher launcher;
  const std::vector<std::string> libraries = allocator_libraries({variant}, launcher);
  ASSERT_EQ(libraries.size(), 1u);
  ASSERT_EQ(std::filesystem::path(libraries[0]).filename(), library_name) << libraries[0];
  const nlohmann::json hello = hello_from_copies(variant, libraries[0], dir.path());
  ASSERT_EQ(hello.value("type", ""), "hello") << hello.dump();
  const std::string served = hello.value("malloc_object", "");
  EXPECT_TRUE(served.starts_with(dir.path().string() + "/w")) << served;
  EXPECT_EQ(std::filesystem::path(served).filename(), library_name) << served;
}

TEST(ProcessCopy, ALinkedWorkersMallocComesFromItsOwnCopyOfTheLibrary) {
  Variant linked;
  linked.backend = "linked";
  linked.exe = testing::built::kTinyWorkerV1;
  expect_served_by_its_copy(linked, "libtiny.so");
}

TEST(ProcessCopy, APreloadedLibraryIsLoadedFromItsOwnCopy) {
  Variant preloaded;
  preloaded.exe = testing::built::kWorkerSystem;
  preloaded.preload = testing::built::kTinyV1;
  expect_served_by_its_copy(preloaded, "libtiny.so");
}

TEST(ProcessCopy, TheCLibraryIsNeverCopiedNorAWorkerThatFailsItsSelfCheck) {
  Variant glibc, missing;
  glibc.exe = testing::built::kWorkerSystem;
  missing.exe = "/nonexistent/abench-worker-system";
  ProcessLauncher launcher;
  EXPECT_EQ(allocator_libraries({glibc, missing}, launcher), (std::vector<std::string>{"", ""}));
  // What tells glibc apart: its worker reports the C library as malloc's object.
  LaunchRequest request{glibc.exe, {"--self-check"}, {}, "", 30};
  std::string hello;
  launcher.run(request, [&](std::string_view line) {
    if (hello.empty()) hello = line;
    return 0.0;
  });
  EXPECT_NE(nlohmann::json::parse(hello).value("malloc_object", "").find("libc.so"), std::string::npos) << hello;
}

// A worker built before abench made copies would refuse one: its library is left alone.
TEST(ProcessCopy, AWorkerThatDoesNotSayItAcceptsACopyKeepsItsLibrary) {
  testing::TempDir dir;
  const auto worker = [&](const std::string& name, const std::string& extra) {
    const std::string path = dir.write(name,
                                       "#!/bin/sh\necho '{\"type\":\"hello\",\"protocol\":4,"
                                       "\"malloc_object\":\"/opt/x/lib/libx.so.1\"" +
                                           extra + "}' >&3\n");
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    Variant v;
    v.exe = path;
    return v;
  };
  ProcessLauncher launcher;
  EXPECT_EQ(allocator_libraries({worker("old", ""), worker("new", ",\"accepts_library_copy\":true")}, launcher),
            (std::vector<std::string>{"", "/opt/x/lib/libx.so.1"}));
}

}  // namespace
}  // namespace abench
