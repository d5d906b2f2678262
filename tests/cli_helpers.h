// Test helpers for end-to-end tests: run the real abench CLI, read the files it wrote.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/run/process_launcher.h"
#include "tests/built_paths.h"

namespace abench::testing {

struct CliResult {
  int exit_code;
  std::string out, err;
};

// A program run to its end, every byte of its output kept (tests read tables and messages).
inline CliResult run_program(const std::string& path, std::vector<std::string> args,
                             std::vector<std::pair<std::string, std::string>> env, double timeout_s) {
  ProcessLauncher launcher;
  LaunchRequest request{path, std::move(args), std::move(env), "", timeout_s};
  request.output_tail_bytes = std::size_t{64} << 20;
  const LaunchOutcome o = launcher.run(request, [](std::string_view) { return 0.0; });
  EXPECT_TRUE(o.started) << path << ": " << o.start_error;
  EXPECT_EQ(o.signal, 0) << path << " " << describe(o);
  return {o.exit_code, o.stdout_tail, o.stderr_tail};
}

// abench itself (the end-to-end tests; tests/built_paths.cc says where it is).
inline CliResult run_cli(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env = {}) {
  return run_program(built::kAbench, std::move(args), std::move(env), 300);
}

// Another program that reads abench's files (chromium, Debian's python3 with compare.py;
// scripts/test installs them).
inline CliResult run_tool(const std::string& path, std::vector<std::string> args, double timeout_s = 120) {
  return run_program(path, std::move(args), {}, timeout_s);
}

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline nlohmann::json read_json(const std::filesystem::path& p) { return nlohmann::json::parse(read_file(p)); }

inline void write_json(const std::filesystem::path& p, const nlohmann::json& j) { std::ofstream(p) << j.dump(1); }

// A two-round results file as SIGINT leaves it when round 2 had not run: what --resume takes.
inline void as_interrupted_after_round_one(nlohmann::json& results) {
  results["complete"] = false;
  results["interrupted_by"] = "INT";
  for (auto& cell : results["cells"]) {
    auto& processes = cell["processes"];
    processes.erase(std::remove_if(processes.begin(), processes.end(), [](const auto& p) { return p["round"] == 2; }),
                    processes.end());
    cell["finished_rounds"] = nlohmann::json{1};
    cell["status"] = "partial";
  }
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// results.csv as one map a row, keyed by the header.
inline std::vector<std::map<std::string, std::string>> read_csv(const std::filesystem::path& p) {
  // RFC 4180 fields: a quoted field may hold commas and doubled quotes.
  auto split = [](const std::string& line) {
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.emplace_back();
      } else {
        fields.back() += c;
      }
    }
    return fields;
  };
  const auto lines = split_lines(read_file(p));
  std::vector<std::map<std::string, std::string>> rows;
  if (lines.empty()) return rows;
  const auto header = split(lines[0]);
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto fields = split(lines[i]);
    EXPECT_EQ(fields.size(), header.size()) << lines[i];
    std::map<std::string, std::string> row;
    for (std::size_t f = 0; f < header.size() && f < fields.size(); ++f) row[header[f]] = fields[f];
    rows.push_back(row);
  }
  return rows;
}

}  // namespace abench::testing
