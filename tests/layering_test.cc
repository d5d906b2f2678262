// The tree is the architecture (docs/architecture.md): each folder of src/ a layer, no
// include from a folder to one above it, nothing at src/'s top level but main.cc, and no
// source file over 400 lines.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>

namespace {

const std::filesystem::path kSource = std::filesystem::path(ABENCH_SOURCE_DIR_FOR_LAYERS) / "src";

// Higher layers use lower ones, never the other way round.
const std::map<std::string, int> kLayer{{"util", 0},    {"stats", 0},   {"machine", 1}, {"plan", 2},    {"results", 3},
                                        {"verdict", 4}, {"explain", 4}, {"run", 5},     {"exports", 6}, {"report", 7},
                                        {"merge", 8},   {"store", 8},   {"flow", 9},    {"cli", 10}};

TEST(Layering, NoIncludeClimbsToAHigherFolder) {
  const std::regex include(R"re(#include "src/([a-z_]+)/)re");
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource)) {
    if (!entry.is_regular_file()) continue;
    const auto relative = std::filesystem::relative(entry.path(), kSource);
    if (relative.begin() == relative.end() || std::next(relative.begin()) == relative.end()) continue;  // main.cc
    const std::string folder = relative.begin()->string();
    ASSERT_TRUE(kLayer.contains(folder)) << "src/" << folder << " is no layer of docs/architecture.md";
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      ASSERT_TRUE(kLayer.contains(m[1])) << entry.path() << ": " << line;
      EXPECT_LE(kLayer.at(m[1]), kLayer.at(folder)) << "src/" << relative.string() << " climbs: " << line;
    }
    ++files;
  }
  EXPECT_GT(files, 50);
}

TEST(Layering, OnlyMainAtTheTopAndNoSourceFileOver400Lines) {
  for (const auto& entry : std::filesystem::directory_iterator(kSource))
    if (entry.is_regular_file()) {
      EXPECT_EQ(entry.path().filename(), "main.cc");
    }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    EXPECT_LE(lines, 400) << entry.path();
  }
}

// Commands only parse (docs/architecture.md): cli/ turns options into a workflow's request
// and its outcome into an exit code, so it needs few headers and nothing of run/.
TEST(Layering, CommandsOnlyParse) {
  const std::regex project_include(R"re(#include "(src|harness|allocators)/([a-z_]+)/?)re");
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "cli")) {
    std::ifstream in(entry.path());
    int includes = 0;
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, project_include)) continue;
      ++includes;
      EXPECT_NE(m[2], "run") << entry.path() << " includes from src/run/: " << line;
    }
    EXPECT_LE(includes, 10) << entry.path();
  }
}

TEST(Layering, EveryCommandFunctionFitsIn30Lines) {
  const std::regex command(R"re(^int [a-z_]+_command\()re");
  int functions = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "cli")) {
    std::ifstream in(entry.path());
    int line_number = 0, started = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_number;
      if (started == 0 && std::regex_search(line, command)) {
        started = line_number;
        ++functions;
      } else if (started != 0 && line == "}") {
        EXPECT_LE(line_number - started + 1, 30) << entry.path() << ":" << started;
        started = 0;
      }
    }
  }
  EXPECT_GE(functions, 7);
}

// run/ by job (docs/architecture.md): no file of it over 250 lines, and no function
// defined at a file's top level in src/, harness/ or allocators/ over 80 lines (from its
// opening line to its closing brace; a class's own methods are short by the same rule).
TEST(Layering, RunFilesFitIn250LinesAndFunctionsIn80) {
  for (const auto& entry : std::filesystem::directory_iterator(kSource / "run")) {
    std::ifstream in(entry.path());
    int lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    EXPECT_LE(lines, 250) << entry.path();
  }
  // A definition opens at a line at column 0 with a '(' (its signature, which may go on over
  // indented lines) and a '{' at the end of that line or of one of those.
  const std::regex not_a_function(
      R"re(^(namespace|struct|class|enum|extern|union|template <[^>]*> (struct|class))\b)re");
  int functions = 0;
  for (const char* folder : {"src", "harness", "allocators"}) {
    const auto root = kSource.parent_path() / folder;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      std::ifstream in(entry.path());
      int line_number = 0, signature = 0, started = 0;
      for (std::string line; std::getline(in, line);) {
        ++line_number;
        if (started != 0) {
          if (line == "}" || line == "};") {
            EXPECT_LE(line_number - started + 1, 80) << entry.path() << ":" << started;
            started = 0;
          }
          continue;
        }
        const bool continues = signature != 0 && !line.empty() && line[0] == ' ';
        if (!continues)
          signature = !line.empty() && std::isalpha(static_cast<unsigned char>(line[0])) &&
                              line.find('(') != std::string::npos && !std::regex_search(line, not_a_function)
                          ? line_number
                          : 0;
        if (signature != 0 && line.ends_with("{")) {
          started = signature;
          signature = 0;
          ++functions;
        } else if (line.ends_with(";")) {
          signature = 0;
        }
      }
    }
  }
  EXPECT_GT(functions, 300);
}

// Traits, not branches (docs/architecture.md): what differs between measures is kMeasures'
// row (harness/protocol.h), read where a measure decides something; a comparison with one
// measure stays only where the measures differ by a table of their own (perf's events).
TEST(Layering, AtMost10BranchesOnTheMeasure) {
  const std::regex branch(R"re((==|!=)\s*Measure::|case Measure::)re");
  int branches = 0;
  for (const char* folder : {"src", "harness", "allocators"})
    for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource.parent_path() / folder)) {
      if (!entry.is_regular_file() || entry.path().filename() == "protocol.h") continue;
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);)
        for (std::sregex_iterator m(line.begin(), line.end(), branch), end; m != end; ++m) ++branches;
    }
  EXPECT_LE(branches, 10);
  EXPECT_GT(branches, 0) << "the check found no branch at all: does it still read the tree?";
}

}  // namespace
