// The table of hostile inputs (docs/security.md): files and directories someone else
// prepared, handed to the real CLI. Each row asserts the exit code and the message, that no
// code the input names ran (every case has a script beside it that would leave a marker), and
// that nothing changed outside the output the row names: a refusal writes nothing at all.
// One test walks the table so that the runs it crafts from are measured once.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/run/run_origin.h"
#include "tests/cli_helpers.h"
#include "tests/temp_dir.h"

namespace abench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CliResult;
using testing::read_file;
using testing::run_cli;

using testing::read_json;
using testing::write_json;
void edit_json(const fs::path& p, const std::function<void(json&)>& edit) {
  json j = read_json(p);
  edit(j);
  write_json(p, j);
}
void write_text(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }
std::string replaced_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// What a case may work with: its own directory, the measured runs to copy from.
struct Case {
  fs::path root, base;
  fs::path marker() const { return root / "PWNED"; }
  fs::path script() const { return root / "evil.sh"; }
  fs::path copy(const std::string& fixture, const std::string& as) const {
    fs::copy(base / fixture, root / as, fs::copy_options::recursive);
    return root / as;
  }
  // A copy of `fixture` that says it was interrupted: what --resume takes.
  fs::path interrupted(const std::string& fixture, const std::function<void(json&)>& edit = nullptr) const {
    const fs::path dir = copy(fixture, "d");
    edit_json(dir / "results.json", [&](json& j) {
      j["complete"] = false;
      if (edit) edit(j);
    });
    return dir;
  }
  // The record store the case's abench reads (XDG_STATE_HOME is root/state) and the record of
  // the run stored in `dir` there.
  fs::path runs_store() const { return root / "state" / "abench" / "runs"; }
  fs::path record_of(const fs::path& dir) const {
    return runs_store() / (read_json(dir / "results.json")["run_id"].get<std::string>() + ".json");
  }
  // abench's own signed record of starting the command stored in `dir` (src/run/run_origin.h),
  // as if started in `started_in` (default: `dir`).
  void record_start(const fs::path& dir, const fs::path& started_in = {}) const {
    const json stored = read_json(dir / "results.json");
    const char* was = std::getenv("XDG_STATE_HOME");
    const std::string previous = was ? was : "";
    ::setenv("XDG_STATE_HOME", (root / "state").c_str(), 1);
    record_run_origin(started_in.empty() ? dir : started_in, stored["run_id"].get<std::string>(),
                      stored["command_line"].get<std::vector<std::string>>());
    if (was)
      ::setenv("XDG_STATE_HOME", previous.c_str(), 1);
    else
      ::unsetenv("XDG_STATE_HOME");
  }
  // Holds DIR/.abench.lock as another abench command would (its fd stays open for the case).
  void hold_lock(const fs::path& dir) const {
    fs::create_directories(dir);
    const int fd = ::open((dir / ".abench.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
    const std::string who = "pid 4242: abench run --out elsewhere";
    ASSERT_EQ(::ftruncate(fd, 0), 0);
    ASSERT_EQ(::write(fd, who.data(), who.size()), static_cast<ssize_t>(who.size()));
  }
};

// The value after `option` in a stored command line, replaced (or the pair appended).
void set_option(json& results, const std::string& option, const std::string& value) {
  auto& line = results["command_line"];
  for (std::size_t i = 0; i + 1 < line.size(); ++i)
    if (line[i] == option) {
      line[i + 1] = value;
      return;
    }
  line.push_back(option);
  line.push_back(value);
}

// Multiplies the candidate side's figures of every cell: a made-up regression.
void slow_candidate(json& results, double factor) {
  for (auto& cell : results["cells"]) {
    if (cell["side"] != "candidate") continue;
    for (auto& p : cell["processes"]) {
      for (auto& s : p["samples_ns_per_op"]) s = s.get<double>() * factor;
      p["median_ns_per_op"] = p["median_ns_per_op"].get<double>() * factor;
      if (p.contains("paired_ratios"))
        for (auto& r : p["paired_ratios"]) r = r.get<double>() * factor;
    }
  }
}

struct Hostile {
  using Prepare = std::function<std::vector<std::string>(const Case&)>;
  using Also = std::function<void(const Case&, const CliResult&)>;
  Hostile(std::string n, Prepare p, int e, std::string m, std::vector<std::string> w = {}, Also a = nullptr)
      : name(std::move(n)),
        prepare(std::move(p)),
        exit_code(e),
        must_mention(std::move(m)),
        may_write(std::move(w)),
        also(std::move(a)) {}
  std::string name;
  Prepare prepare;
  int exit_code;  // -1: the row's own check says
  std::string must_mention;
  std::vector<std::string> may_write;  // paths under the case's directory the command may change
  Also also;
};

// Every path under root with what identifies its content, links not followed.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> seen;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path& p = it->path();
    const std::string name = p.lexically_relative(root).string();  // never through a link
    if (it->is_symlink()) {
      seen[name] = "link " + fs::read_symlink(p).string();
    } else if (it->is_regular_file()) {
      struct stat st {};
      ::lstat(p.c_str(), &st);
      seen[name] = std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
                   std::to_string(st.st_mtim.tv_nsec) + " " + std::to_string(st.st_ino);
    } else {
      seen[name] = "other";
    }
  }
  return seen;
}

bool allowed(const std::string& path, const std::vector<std::string>& may_write) {
  for (const std::string& prefix : may_write)
    if (path == prefix || path.starts_with(prefix + "/")) return true;
  return false;
}

// Whether `markup` appears in Markdown with its first character not backslash-escaped
// (a line break never escapes).
bool unescaped(const std::string& md, const std::string& markup) {
  for (std::size_t at = md.find(markup); at != std::string::npos; at = md.find(markup, at + 1)) {
    const std::size_t first = markup[0] == '\n' ? at + 1 : at;
    if (markup[0] == '\n' || first == 0 || md[first - 1] != '\\') return true;
  }
  return false;
}

const std::string kPayload = "E|V|I|L\n\n## FAKE PASS <img src=x onerror=alert(1)> [x](http://evil) @admin `x`";

std::vector<Hostile> table() {
  std::vector<Hostile> t;
  const auto resume_compare = [](std::string option, std::string value) {
    return [option, value](const Case& c) {
      const std::string v = replaced_all(value, "@SCRIPT@", c.script().string());
      const fs::path d = c.interrupted("cmp", [&](json& j) { set_option(j, option, v); });
      return std::vector<std::string>{"compare", "--resume", d.string()};
    };
  };
  // 1. Resume runs only what the user names now.
  t.push_back({"resume_candidate_exe", resume_compare("--candidate", "backend=system,exe=@SCRIPT@"), 2,
               "runs code or stores a baseline it names (exe="});
  t.push_back(
      {"resume_baseline_exe", resume_compare("--baseline", "backend=system,exe=@SCRIPT@"), 2, "it names (exe="});
  t.push_back(
      {"resume_plugin", resume_compare("--candidate", "backend=system,plugin=@SCRIPT@"), 2, "it names (plugin="});
  t.push_back(
      {"resume_preload", resume_compare("--candidate", "backend=system,preload=@SCRIPT@"), 2, "it names (preload="});
  t.push_back({"resume_env_ld_preload", resume_compare("--candidate", "backend=system,env=LD_PRELOAD=@SCRIPT@"), 2,
               "it names (env=LD_PRELOAD="});
  t.push_back({"resume_env_ld_library_path", resume_compare("--candidate", "backend=system,env=LD_LIBRARY_PATH=/tmp"),
               2, "it names (env=LD_LIBRARY_PATH"});
  t.push_back({"resume_env_ld_audit", resume_compare("--candidate", "backend=system,env=LD_AUDIT=@SCRIPT@"), 2,
               "it names (env=LD_AUDIT"});
  t.push_back({"resume_env_malloc_conf", resume_compare("--baseline", "backend=system,env=MALLOC_CONF=junk:true"), 2,
               "it names (env=MALLOC_CONF"});
  t.push_back({"resume_joined_option",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp", [&](json& j) {
                   j["command_line"].push_back("--candidate=backend=system,exe=" + c.script().string());
                   auto& line = j["command_line"];
                   for (std::size_t i = 0; i + 1 < line.size(); ++i)
                     if (line[i] == "--candidate")
                       line.erase(line.begin() + static_cast<long>(i), line.begin() + static_cast<long>(i) + 2);
                 });
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2, "exe="});
  t.push_back({"resume_trust_claimed_by_the_file",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp", [&](json& j) {
                   set_option(j, "--candidate", "backend=system,exe=" + c.script().string());
                   j["command_line"].push_back("--trust-stored-command");
                 });
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2, "abench has no record of starting run"});
  t.push_back({"resume_record_of_another_command",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp");
                 c.record_start(d);  // abench's record of the command it started; the file's edited since
                 edit_json(d / "results.json",
                           [&](json& j) { set_option(j, "--candidate", "backend=system,exe=" + c.script().string()); });
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2, "is not the one abench started run"});
  t.push_back({"resume_measured_under_other_batch_rules",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp", [](json& j) {
                   j["protocol"]["batch"]["warm_up"] =
                       "double the count until a batch lasts min_batch_ms/16 (an older build)";
                 });
                 c.record_start(d);
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2,
               "sized its batches otherwise",
               {"d/.abench.lock"}});  // read under the directory's lock
  t.push_back({"resume_record_of_another_directory",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp", [&](json& j) {
                   set_option(j, "--candidate", "backend=system,exe=" + c.script().string());
                 });
                 c.record_start(d, "/elsewhere");
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2, "was started by abench in /elsewhere, not here"});
  // 1b. A record vouches only when an abench of this user's signed it, in a store nobody else can
  // change, reached through no link (src/run/run_origin.cc).
  const auto resume_with_record = [](std::function<void(const Case&, const fs::path&)> tamper) {
    return [tamper](const Case& c) {
      const fs::path d = c.interrupted(
          "cmp", [&](json& j) { set_option(j, "--candidate", "backend=system,exe=" + c.script().string()); });
      c.record_start(d);
      tamper(c, d);
      return std::vector<std::string>{"compare", "--resume", d.string()};
    };
  };
  t.push_back({"resume_record_planted_unsigned", resume_with_record([](const Case& c, const fs::path& d) {
                 edit_json(c.record_of(d), [](json& record) { record.erase("mac"); });
               }),
               2, "not signed with this user's key"});
  t.push_back({"resume_record_signed_with_another_key", resume_with_record([](const Case& c, const fs::path&) {
                 // What a record copied from another user or machine is: signed under their key.
                 const fs::path key = c.root / "state" / "abench" / "key";
                 fs::remove(key);
                 write_text(key, std::string(32, 'k'));
                 fs::permissions(key, fs::perms::owner_read | fs::perms::owner_write);
               }),
               2, "not signed with this user's key"});
  t.push_back({"resume_record_store_is_a_link",
               resume_with_record([](const Case& c, const fs::path&) {
                 fs::rename(c.runs_store(), c.root / "runs-elsewhere");
                 fs::permissions(c.root / "runs-elsewhere", fs::perms::owner_all | fs::perms::group_read |
                                                                fs::perms::group_exec | fs::perms::others_read |
                                                                fs::perms::others_exec);
                 fs::create_directory_symlink(c.root / "runs-elsewhere", c.runs_store());
               }),
               2,
               "is a symbolic link or not a directory",
               {},
               [](const Case& c, const CliResult&) {  // the link's target keeps its mode
                 EXPECT_EQ(fs::status(c.root / "runs-elsewhere").permissions() & fs::perms::mask,
                           fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                               fs::perms::others_read | fs::perms::others_exec);
               }});
  t.push_back({"resume_record_store_writable_by_others", resume_with_record([](const Case& c, const fs::path&) {
                 fs::permissions(c.runs_store(), fs::perms::others_write, fs::perm_options::add);
               }),
               2, "others may write in it"});
  t.push_back({"resume_record_state_directory_writable_by_others",
               resume_with_record([](const Case& c, const fs::path&) {
                 fs::permissions(c.root / "state", fs::perms::group_write, fs::perm_options::add);
               }),
               2, "others may write in it"});
  t.push_back({"resume_record_with_two_names", resume_with_record([](const Case& c, const fs::path& d) {
                 fs::create_hard_link(c.record_of(d), c.root / "second-name.json");
               }),
               2, "it has 2 names"});
  t.push_back({"resume_record_writable_by_others", resume_with_record([](const Case& c, const fs::path& d) {
                 fs::permissions(c.record_of(d), fs::perms::others_write, fs::perm_options::add);
               }),
               2, "others may write it"});
  t.push_back({"resume_record_key_readable_by_others", resume_with_record([](const Case& c, const fs::path&) {
                 fs::permissions(c.root / "state" / "abench" / "key", fs::perms::others_read, fs::perm_options::add);
               }),
               2, "others may read or write it"});
  t.push_back({"resume_record_is_a_fifo", resume_with_record([](const Case& c, const fs::path& d) {
                 const fs::path record = c.record_of(d);
                 fs::remove(record);
                 ::mkfifo(record.c_str(), 0600);
               }),
               2, "it is not a regular file"});
  if (geteuid() == 0)  // only root can give a file away
    t.push_back({"resume_record_of_another_user", resume_with_record([](const Case& c, const fs::path& d) {
                   ASSERT_EQ(::chown(c.record_of(d).c_str(), 65534, 65534), 0);
                 }),
                 2, "belongs to user id 65534"});
  t.push_back({"resume_run_id_that_names_a_path",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp", [&](json& j) {
                   set_option(j, "--candidate", "backend=system,exe=" + c.script().string());
                   j["run_id"] = "../../../../etc/passwd";
                 });
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2, "is not one abench makes"});
  t.push_back({"resume_save_baseline",
               [](const Case& c) {
                 const fs::path d = c.interrupted(
                     "run", [&](json& j) { set_option(j, "--save-baseline", "hostile-" + std::to_string(getpid())); });
                 return std::vector<std::string>{"run", "--resume", d.string()};
               },
               2,
               "--save-baseline hostile-",
               {},
               [](const Case&, const CliResult&) {
                 EXPECT_FALSE(fs::exists(fs::path(testing::built::kSourceDir) / "results" / "baselines" /
                                         ("hostile-" + std::to_string(getpid()))));
               }});
  t.push_back({"resume_rounds_outside_the_plan",
               [](const Case& c) {
                 const fs::path d = c.interrupted("run", [](json& j) { set_option(j, "--processes", "1"); });
                 return std::vector<std::string>{"run", "--resume", d.string()};
               },
               2,
               "holds round 2, but the command stored there plans 1 round",
               {"d/.abench.lock"}});
  t.push_back({"resume_round_measured_twice",
               [](const Case& c) {
                 const fs::path d = c.interrupted("run", [](json& j) { j["cells"][0]["processes"][1]["round"] = 1; });
                 return std::vector<std::string>{"run", "--resume", d.string()};
               },
               2,
               "a round processes[0] measured already",
               {"d/.abench.lock"}});
  t.push_back({"resume_finished_round_twice",
               [](const Case& c) {
                 const fs::path d = c.interrupted("run", [](json& j) { j["cells"][0]["finished_rounds"] = {1, 1}; });
                 return std::vector<std::string>{"run", "--resume", d.string()};
               },
               2,
               "listed twice",
               {"d/.abench.lock"}});
  t.push_back(
      {"resume_with_another_option",
       [](const Case& c) {
         return std::vector<std::string>{"run", "--resume", c.interrupted("run").string(), "--save-baseline", "x"};
       },
       2, "takes no other options but --trust-stored-command"});

  // 2. Merge judges, never copies.
  const auto merge_of = [](std::function<void(const Case&, const fs::path&, const fs::path&)> edit,
                           std::vector<std::string> more = {}) {
    return [edit, more](const Case& c) {
      const fs::path s1 = c.copy("s1", "s1"), s2 = c.copy("s2", "s2");
      edit(c, s1, s2);
      std::vector<std::string> args{"merge",      s1.string(), s2.string(), "--out", (c.root / "out").string(),
                                    "--no-report"};
      args.insert(args.end(), more.begin(), more.end());
      return args;
    };
  };
  t.push_back({"merge_forged_pass_over_a_regression",
               merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "results.json", [](json& j) { slow_candidate(j, 4); });
                 // The shard's own gate.json says every cell passed.
                 edit_json(s1 / "gate.json", [](json& j) {
                   for (auto& cell : j["cells"]) cell["result"] = "pass", cell["pass"] = true;
                 });
               }),
               1,
               "regression",
               {"out", "summary.md"},
               [](const Case& c, const CliResult&) {
                 const json gate = read_json(c.root / "out" / "gate.json");
                 EXPECT_GE(gate["regressions"].get<int>(), 1) << gate.dump();
               }});
  t.push_back({"merge_gate_threshold_loosened", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "gate.json", [](json& j) {
                   for (auto& cell : j["cells"]) cell["threshold"] = 10, cell["applied_threshold"] = 10;
                 });
               }),
               2, "merge's rules give 5%"});
  t.push_back({"merge_gate_confidence_lowered", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "gate.json", [](json& j) { j["confidence"] = 0.6; });
               }),
               2, "field 'confidence' is 0.6, merge judges at 0.95"});
  t.push_back({"merge_gate_rules_not_given",
               merge_of([](const Case&, const fs::path&, const fs::path&) {}, {"--threshold", "50"}), 2,
               "give abench merge the --confidence, --threshold"});
  t.push_back({"merge_gate_json_missing",
               merge_of([](const Case&, const fs::path&, const fs::path& s2) { fs::remove(s2 / "gate.json"); }), 2,
               "gate.json is missing"});
  t.push_back({"merge_gate_json_cell_twice", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "gate.json", [](json& j) { j["cells"].push_back(j["cells"][0]); });
               }),
               2, "gate.json"});
  t.push_back({"merge_gate_interval_empty", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "gate.json", [](json& j) {
                   for (auto& cell : j["cells"]) cell["interval"] = json::array();
                 });
               }),
               2, "interval"});
  t.push_back({"merge_compare_interval_empty", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "compare.json", [](json& j) {
                   for (auto& row : j["rows"]) row["interval"] = json::array();
                 });
               }),
               2, "interval"});
  t.push_back({"merge_compare_confidence_zero", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "compare.json", [](json& j) { j["method"]["confidence"] = 0; });
               }),
               2, "compare.json"});
  t.push_back({"merge_compare_settings_not_given",
               merge_of([](const Case&, const fs::path&, const fs::path&) {}, {"--min-effect", "20"}), 2,
               "give abench merge the --confidence, --min-effect and --detect"});
  t.push_back({"merge_plan_ids_swapped", merge_of([](const Case&, const fs::path& s1, const fs::path& s2) {
                 // Each shard's baseline cell laid at the other shard's place.
                 const json a = read_json(s1 / "results.json"), b = read_json(s2 / "results.json");
                 edit_json(s1 / "results.json", [&](json& j) { j["shard"]["plan_ids"] = b["shard"]["plan_ids"]; });
                 edit_json(s2 / "results.json", [&](json& j) { j["shard"]["plan_ids"] = a["shard"]["plan_ids"]; });
               }),
               2, "where the plan measures"});
  t.push_back({"merge_worker_names_a_cell_not_held", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "results.json", [](json& j) { j["workers"][0]["cells"].push_back(4096); });
               }),
               2, "field 'workers[0].cells"});
  t.push_back({"merge_worker_order_negative", merge_of([](const Case&, const fs::path&, const fs::path& s2) {
                 edit_json(s2 / "results.json", [](json& j) { j["workers"][0]["order"] = json::array({-1}); });
               }),
               2, "field 'workers[0].order[0]'"});
  t.push_back({"merge_stored_format_unknown", merge_of([](const Case&, const fs::path& s1, const fs::path& s2) {
                 for (const fs::path& s : {s1, s2})
                   edit_json(s / "results.json", [](json& j) { set_option(j, "--format", "csv-but-evil"); });
               }),
               2, "as its command line is stored: option --format: unknown format 'csv-but-evil'"});
  t.push_back({"merge_cell_work_edited", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "results.json", [](json& j) { j["cells"][1]["size"] = 4096; });
               }),
               2, "field 'cells[1]'"});
  t.push_back({"merge_shard_count_huge",
               merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "results.json", [](json& j) { j["shard"]["count"] = 2147483647; });
               }),
               2,
               "shard.count",
               {},
               [](const Case&, const CliResult& r) { EXPECT_LT(r.err.size(), 2000u); }});
  t.push_back({"merge_shard_count_millions",
               merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "results.json", [](json& j) { j["shard"]["count"] = 3000000; });
               }),
               2,
               "shard.count",
               {},
               [](const Case&, const CliResult& r) { EXPECT_LT(r.err.size(), 2000u); }});
  t.push_back({"merge_shard_index_zero", merge_of([](const Case&, const fs::path& s1, const fs::path&) {
                 edit_json(s1 / "results.json", [](json& j) { j["shard"]["index"] = 0; });
               }),
               2, "shard.index"});
  t.push_back({"merge_shard_given_twice",
               [](const Case& c) {
                 const fs::path s1 = c.copy("s1", "s1");
                 return std::vector<std::string>{"merge", s1.string(), s1.string(), "--out", (c.root / "out").string()};
               },
               2, "given twice"});
  t.push_back({"merge_second_run_of_other_cells", merge_of([](const Case&, const fs::path& s1, const fs::path& s2) {
                 edit_json(s1 / "results.json", [](json& j) { slow_candidate(j, 4); });
                 fs::create_directories(s1 / "confirm");
                 fs::copy_file(s2 / "results.json", s1 / "confirm" / "results.json");
               }),
               2, "is not that shard's second run"});
  t.push_back({"merge_save_noise_of_a_compare",
               merge_of([](const Case&, const fs::path&, const fs::path&) {}, {"--save-noise", "main"}), 2,
               "not of calibrate"});
  t.push_back({"merge_save_noise_name_escapes",
               merge_of([](const Case&, const fs::path&, const fs::path&) {}, {"--save-noise", "../../evil"}), 2,
               "--save-noise '../../evil': a name is"});
  t.push_back({"merge_confidence_out_of_range",
               merge_of([](const Case&, const fs::path&, const fs::path&) {}, {"--confidence", "2"}), 2,
               "--confidence"});

  // 5. Crafted fields never crash: report reads each file through its one reader.
  const auto report_of = [](std::string fixture, std::function<void(const fs::path&)> edit) {
    return [fixture, edit](const Case& c) {
      const fs::path d = c.copy(fixture, "d");
      edit(d);
      return std::vector<std::string>{"report", d.string()};
    };
  };
  t.push_back({"report_compare_interval_empty",
               report_of("cmp",
                         [](const fs::path& d) {
                           edit_json(d / "compare.json", [](json& j) { j["rows"][0]["interval"] = json::array(); });
                         }),
               2, "interval"});
  t.push_back({"report_gate_interval_empty",
               report_of("gate",
                         [](const fs::path& d) {
                           edit_json(d / "gate.json", [](json& j) { j["cells"][0]["interval"] = json::array(); });
                         }),
               2, "interval"});
  t.push_back({"report_compare_verdict_forged",
               report_of("cmp",
                         [](const fs::path& d) {
                           // Another verdict than measured: an unchanged build's cell is called faster
                           // now and then (issue 48), and "faster" would then forge nothing.
                           edit_json(d / "compare.json", [](json& j) {
                             json& verdict = j["rows"][0]["verdict"];
                             verdict = verdict == "faster" ? "slower" : "faster";
                           });
                         }),
               2, "compare.json"});
  t.push_back({"report_compare_context_mark_forged",
               report_of("cmp",
                         [](const fs::path& d) {
                           edit_json(d / "compare.json", [](json& j) {
                             j["context"] = true;
                             for (auto& row : j["rows"]) row["context"] = "<b>nowhere</b>";
                           });
                         }),
               2, "field 'rows[0].context' is '<b>nowhere</b>' (allowed: -, baseline, candidate, both)"});
  t.push_back({"report_compare_context_without_context_cells",
               report_of("cmp",
                         [](const fs::path& d) {
                           edit_json(d / "compare.json", [](json& j) {
                             j["context"] = true;
                             for (auto& row : j["rows"]) row["context"] = "-";
                           });
                         }),
               2, "field 'context' is true, but"});
  t.push_back({"report_process_mode_unknown",
               report_of("run",
                         [](const fs::path& d) {
                           edit_json(d / "results.json", [](json& j) { j["protocol"]["process_mode"] = "fork-bomb"; });
                         }),
               2,
               "field 'protocol.process_mode' is \"fork-bomb\" (allowed: process-per-variant, fresh-process-per-cell, "
               "context)"});
  t.push_back({"report_gate_outcome_unknown",
               report_of("gate",
                         [](const fs::path& d) {
                           edit_json(d / "gate.json", [](json& j) { j["cells"][0]["result"] = "PASS!!"; });
                         }),
               2, "not a gate outcome"});
  t.push_back({"report_counts_1e308",
               report_of("run",
                         [](const fs::path& d) {
                           edit_json(d / "results.json",
                                     [](json& j) { j["cells"][0]["counts"]["operations"] = 1e308; });
                         }),
               2, "counts"});
  t.push_back({"report_counts_negative",
               report_of("run",
                         [](const fs::path& d) {
                           edit_json(d / "results.json",
                                     [](json& j) { j["cells"][0]["counts"]["peak_rss_bytes"] = -1; });
                         }),
               2, "counts"});
  t.push_back({"report_status_forged",
               report_of("run",
                         [](const fs::path& d) {
                           edit_json(d / "results.json", [](json& j) { j["cells"][0]["status"] = "failed"; });
                         }),
               2, "status"});
  t.push_back({"report_sample_overflows",
               report_of("run",
                         [](const fs::path& d) {
                           const std::string text = read_file(d / "results.json");
                           const std::size_t at = text.find("\"samples_ns_per_op\"");
                           const std::size_t open = text.find('[', at);
                           write_text(d / "results.json", text.substr(0, open + 1) + "1e400," + text.substr(open + 1));
                         }),
               2, "out of range"});
  t.push_back({"report_nested_too_deep",
               report_of("run", [](const fs::path& d) { write_text(d / "results.json", std::string(100000, '[')); }), 2,
               "more than 64 levels deep"});
  t.push_back({"report_key_twice",
               report_of("run",
                         [](const fs::path& d) {
                           const std::string text = read_file(d / "results.json");
                           write_text(d / "results.json", "{\"run_id\": \"x\"," + text.substr(text.find('{') + 1));
                         }),
               2, "appears twice"});
  t.push_back({"report_workload_as_format",
               report_of("run",
                         [](const fs::path& d) {
                           edit_json(d / "results.json", [](json& j) { j["cells"][0]["workload"] = "allocate%d%n"; });
                         }),
               2, "unknown workload"});
  t.push_back(
      {"report_schema_version_from_the_future",
       report_of("run",
                 [](const fs::path& d) { edit_json(d / "results.json", [](json& j) { j["schema_version"] = 999; }); }),
       2, "schema_version"});
  t.push_back({"report_results_is_a_fifo",
               report_of("run",
                         [](const fs::path& d) {
                           fs::remove(d / "results.json");
                           ::mkfifo((d / "results.json").c_str(), 0644);
                         }),
               2, "not a regular file"});
  t.push_back({"report_plan_ids_short",
               report_of("run",
                         [](const fs::path& d) {
                           edit_json(d / "results.json", [](json& j) {
                             j["shard"] = {{"index", 1},         {"count", 2},      {"plan_cells", 4},
                                           {"plan_ids", {0, 1}}, {"expected_s", 1}, {"plan_expected_s", 2}};
                           });
                         }),
               2, "plan_ids"});
  t.push_back({"gate_noise_floor_beyond_ten",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 write_json(c.root / "noise.json",
                            {{"schema", "abench.noise"}, {"cells", {{"system/exact/allocate/64/1:64/1", 11}}}});
                 return std::vector<std::string>{"gate",
                                                 "--baseline",
                                                 d.string(),
                                                 "--candidate",
                                                 d.string(),
                                                 "--noise",
                                                 (c.root / "noise.json").string(),
                                                 "--out",
                                                 (c.root / "out").string()};
               },
               2, "a noise floor is a fraction from 0 to 10"});
  t.push_back({"gate_candidate_status_forged",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 edit_json(d / "results.json", [](json& j) { j["cells"][0]["status"] = "refused"; });
                 return std::vector<std::string>{"gate",     "--baseline", (c.base / "run").string(), "--candidate",
                                                 d.string(), "--out",      (c.root / "out").string()};
               },
               2, "status"});

  // 3. No write follows a link.
  t.push_back({"link_report_directory",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 fs::create_directories(c.root / "elsewhere");
                 fs::create_directory_symlink(c.root / "elsewhere", d / "report");
                 return std::vector<std::string>{"report", d.string()};
               },
               2,
               "is a symbolic link",
               {"d/.abench.lock"}});
  // `report` on a copy of a run whose .abench.lock someone replaced with what `plant` makes there.
  const auto report_with_planted_lock = [](std::function<void(const Case&, const fs::path&)> plant) {
    return [plant](const Case& c) {
      const fs::path d = c.copy("run", "d");
      write_text(c.root / "precious", "precious\n");
      fs::remove(d / ".abench.lock");
      plant(c, d / ".abench.lock");
      return std::vector<std::string>{"report", d.string()};
    };
  };
  const auto precious_unchanged = [](const Case& c, const CliResult&) {
    EXPECT_EQ(read_file(c.root / "precious"), "precious\n");
  };
  t.push_back({"link_lock_file",
               report_with_planted_lock(
                   [](const Case& c, const fs::path& lock) { fs::create_symlink(c.root / "precious", lock); }),
               2,
               ".abench.lock: is a symbolic link",
               {},
               precious_unchanged});
  // A second name of a file elsewhere: abench's line would overwrite that file.
  t.push_back({"hardlink_lock_file",
               report_with_planted_lock(
                   [](const Case& c, const fs::path& lock) { fs::create_hard_link(c.root / "precious", lock); }),
               2,
               ".abench.lock: is a file with 2 names",
               {},
               precious_unchanged});
  t.push_back({"directory_lock_file",
               report_with_planted_lock([](const Case&, const fs::path& lock) { fs::create_directory(lock); }), 2,
               ".abench.lock: is not a regular file"});
  t.push_back({"fifo_lock_file",
               report_with_planted_lock([](const Case&, const fs::path& lock) { ::mkfifo(lock.c_str(), 0644); }), 2,
               ".abench.lock: is not a regular file"});
  // The hot path report publishes is read below the results directory through no link: a link
  // at explain/, at explain/hot-path/ or at a listing is refused, and what it points to is not
  // shown (src/util/json_file.h, read_bounded_file_below).
  const auto report_with_hot_path_linked = [](std::string what_is_a_link) {
    return [what_is_a_link](const Case& c) {
      const fs::path d = c.copy("run", "d");
      const fs::path outside = c.root / "outside";
      fs::create_directories(outside / "hot-path");
      write_json(outside / "hot-path" / "index.json", {{"schema", "abench.hot_path"},
                                                       {"schema_version", 1},
                                                       {"listings",
                                                        {{{"variant", 0},
                                                          {"label", "system"},
                                                          {"function", "malloc"},
                                                          {"object", "libc.so.6"},
                                                          {"file_address", 0},
                                                          {"size", 1},
                                                          {"listed", true}}}},
                                                       {"diffs", json::array()}});
      write_text(outside / "hot-path" / "0-malloc.s", "SECRET-FROM-OUTSIDE\n");
      if (what_is_a_link == "explain") {
        fs::create_directory_symlink(outside, d / "explain");
      } else if (what_is_a_link == "hot-path") {
        fs::create_directories(d / "explain");
        fs::create_directory_symlink(outside / "hot-path", d / "explain" / "hot-path");
      } else {
        fs::create_directories(d / "explain" / "hot-path");
        fs::copy_file(outside / "hot-path" / "index.json", d / "explain" / "hot-path" / "index.json");
        fs::create_symlink(outside / "hot-path" / "0-malloc.s", d / "explain" / "hot-path" / "0-malloc.s");
      }
      return std::vector<std::string>{"report", d.string()};
    };
  };
  const auto nothing_from_outside = [](const Case& c, const CliResult&) {
    EXPECT_EQ(read_file(c.root / "d" / "report.html").find("SECRET-FROM-OUTSIDE"), std::string::npos);
  };
  // The files report reads are read through no link either: a results.json or compare.json that
  // is a link to another directory's is refused, before anything is written.
  const auto report_with_linked = [](std::string name) {
    return [name](const Case& c) {
      const fs::path d = c.copy("cmp", "d"), elsewhere = c.copy("cmp", "elsewhere");
      fs::remove(d / name);
      fs::create_symlink(elsewhere / name, d / name);
      return std::vector<std::string>{"report", d.string()};
    };
  };
  t.push_back({"report_results_json_is_a_link", report_with_linked("results.json"), 2,
               "results.json is a link or not a directory"});
  t.push_back({"report_compare_json_is_a_link", report_with_linked("compare.json"), 2,
               "compare.json is a link or not a directory"});
  t.push_back({"merge_shard_results_json_is_a_link", merge_of([](const Case& c, const fs::path& s1, const fs::path&) {
                 const fs::path elsewhere = c.copy("s1", "elsewhere");
                 fs::remove(s1 / "results.json");
                 fs::create_symlink(elsewhere / "results.json", s1 / "results.json");
               }),
               2, "results.json is a link or not a directory"});
  t.push_back({"resume_results_json_is_a_link",
               [](const Case& c) {
                 const fs::path d = c.interrupted("cmp"), elsewhere = c.copy("cmp", "elsewhere");
                 fs::remove(d / "results.json");
                 fs::create_symlink(elsewhere / "results.json", d / "results.json");
                 return std::vector<std::string>{"compare", "--resume", d.string()};
               },
               2, "results.json is a link or not a directory"});
  t.push_back({"report_explain_is_a_link",
               report_with_hot_path_linked("explain"),
               0,
               "is a link or not a directory",
               {"d"},
               nothing_from_outside});
  t.push_back({"report_hot_path_is_a_link",
               report_with_hot_path_linked("hot-path"),
               0,
               "is a link or not a directory",
               {"d"},
               nothing_from_outside});
  t.push_back({"report_hot_path_listing_is_a_link",
               report_with_hot_path_linked("listing"),
               0,
               "is a link or not a directory",
               {"d"},
               nothing_from_outside});
  t.push_back({"link_report_html",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 write_text(c.root / "precious", "precious\n");
                 fs::create_symlink(c.root / "precious", d / "report.html");
                 return std::vector<std::string>{"report", d.string()};
               },
               0,
               "report.html",
               {"d"},
               [](const Case& c, const CliResult&) {
                 EXPECT_EQ(read_file(c.root / "precious"), "precious\n");
                 EXPECT_FALSE(fs::is_symlink(c.root / "d" / "report.html"));
               }});
  t.push_back({"link_results_json_in_out",
               [](const Case& c) {
                 fs::create_directories(c.root / "out");
                 write_text(c.root / "precious", "precious\n");
                 fs::create_symlink(c.root / "precious", c.root / "out" / "results.json");
                 return std::vector<std::string>{
                     "run", "--matrix", "quick", "--backend", "system", "--out", (c.root / "out").string()};
               },
               2,
               "already holds a results.json",
               {"out/.abench.lock"}});
  t.push_back({"link_gate_md",
               [](const Case& c) {
                 fs::create_directories(c.root / "out");
                 write_text(c.root / "precious", "precious\n");
                 fs::create_symlink(c.root / "precious", c.root / "out" / "gate.md");
                 return std::vector<std::string>{
                     "gate",
                     "--baseline",
                     (c.base / "run").string(),
                     "--candidate",
                     (c.base / "run").string(),
                     "--no-report",
                     "--force",
                     "--out",
                     (c.root / "out").string()};  // --force: the link is still replaced, not written through
               },
               3,
               "gate.md",
               {"out", "summary.md"},
               [](const Case& c, const CliResult&) { EXPECT_EQ(read_file(c.root / "precious"), "precious\n"); }});
  // --out into another tool's output (no abench command ever wrote there): refused, untouched.
  t.push_back({"out_holds_another_tools_report",
               [](const Case& c) {
                 fs::create_directories(c.root / "out" / "report");
                 write_text(c.root / "out" / "report.html", "<p>another tool's report</p>\n");
                 write_text(c.root / "out" / "report" / "figure.svg", "<svg/>\n");
                 return std::vector<std::string>{"gate",
                                                 "--baseline",
                                                 (c.base / "run").string(),
                                                 "--candidate",
                                                 (c.base / "run").string(),
                                                 "--out",
                                                 (c.root / "out").string()};
               },
               2, "holds what abench did not write (report.html, report/)"});

  t.push_back({"out_holds_only_a_hidden_file",
               [](const Case& c) {
                 fs::create_directories(c.root / "out");
                 write_text(c.root / "out" / ".notes", "mine\n");
                 return std::vector<std::string>{
                     "gate",        "--baseline", (c.base / "run").string(), "--candidate", (c.base / "run").string(),
                     "--no-report", "--out",      (c.root / "out").string()};
               },
               2, "holds what abench did not write (.notes)"});
  t.push_back({"out_foreign_files_with_force",
               [](const Case& c) {
                 fs::create_directories(c.root / "out");
                 write_text(c.root / "out" / "report.html", "<p>another tool's report</p>\n");
                 write_text(c.root / "out" / "notes.txt", "mine\n");
                 return std::vector<std::string>{"gate",
                                                 "--baseline",
                                                 (c.base / "run").string(),
                                                 "--candidate",
                                                 (c.base / "run").string(),
                                                 "--no-report",
                                                 "--force",
                                                 "--out",
                                                 (c.root / "out").string()};
               },
               -1,
               "gate.md",
               {"out/gate.md", "out/gate.json", "out/.abench.lock", "summary.md"},
               [](const Case& c, const CliResult& r) {  // written among them; what was not abench's is left
                 EXPECT_NE(r.exit_code, 2) << r.err;
                 EXPECT_EQ(read_file(c.root / "out" / "notes.txt"), "mine\n");
                 EXPECT_EQ(read_file(c.root / "out" / "report.html"), "<p>another tool's report</p>\n");
               }});

  // Text that is not UTF-8 (a Latin-1 é) where it enters: the options of each command that
  // takes text, and a text field of each file kind, refused with exit 2 before anything runs.
  const std::string latin1 = "caf\xe9";
  const auto run_with = [latin1](std::vector<std::string> extra) {
    return [latin1, extra](const Case& c) {
      std::vector<std::string> args{"run",      "--matrix",       "quick", "--backend",  "system", "--workload",
                                    "allocate", "--size",         "64",    "--live",     "1",      "--samples",
                                    "3",        "--min-batch-ms", "0.2",   "--no-report"};
      for (const std::string& e : extra)
        args.push_back(replaced_all(replaced_all(e, "@LATIN1@", latin1), "@ROOT@", c.root.string()));
      return args;
    };
  };
  t.push_back({"option_out_latin1",
               run_with({"--out", "@ROOT@/@LATIN1@"}),
               2,
               "option --out: its value is not valid UTF-8",
               {},
               [latin1](const Case& c, const CliResult&) { EXPECT_FALSE(fs::exists(c.root / latin1)); }});
  t.push_back({"option_save_baseline_latin1", run_with({"--out", "@ROOT@/o", "--save-baseline", "@LATIN1@"}), 2,
               "option --save-baseline: its value is not valid UTF-8"});
  t.push_back({"option_commit_latin1",
               run_with({"--out", "@ROOT@/o", "--history", "@ROOT@/h.db", "--commit", "@LATIN1@"}), 2,
               "option --commit: its value is not valid UTF-8"});
  t.push_back({"option_history_store_latin1",
               [latin1](const Case& c) {
                 return std::vector<std::string>{
                     "history", "changes", "--history", (c.root / latin1).string(), "--out", (c.root / "o").string()};
               },
               2, "option --history: its value is not valid UTF-8"});
  t.push_back({"option_report_directory_latin1",
               [latin1](const Case& c) {
                 return std::vector<std::string>{"report", (c.root / latin1).string()};
               },
               2, "is not valid UTF-8"});
  // A text field given the bytes after the JSON is written (a JSON writer would escape them).
  const auto with_latin1 = [latin1](const fs::path& file, const std::function<void(json&)>& place) {
    edit_json(file, place);
    std::string text = read_file(file);
    text.replace(text.find("@LATIN1@"), 8, latin1);
    write_text(file, text);
  };
  t.push_back({"results_label_latin1",
               [with_latin1](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 with_latin1(d / "results.json", [](json& j) { j["variants"][0]["label"] = "@LATIN1@"; });
                 return std::vector<std::string>{"report", d.string()};
               },
               2, "results.json: malformed JSON"});
  t.push_back({"compare_json_label_latin1",
               [with_latin1](const Case& c) {
                 const fs::path d = c.copy("cmp", "d");
                 with_latin1(d / "compare.json", [](json& j) { j["baselines"][0] = "@LATIN1@"; });
                 return std::vector<std::string>{"report", d.string()};
               },
               2, "compare.json: malformed JSON"});
  t.push_back({"merge_gate_json_key_latin1", merge_of([with_latin1](const Case&, const fs::path& s1, const fs::path&) {
                 with_latin1(s1 / "gate.json", [](json& j) { j["cells"][0]["key"] = "@LATIN1@"; });
               }),
               2, "gate.json: malformed JSON"});
  t.push_back({"matrix_name_latin1",
               [with_latin1](const Case& c) {
                 fs::copy_file(fs::path(testing::built::kSourceDir) / "matrices" / "quick.json", c.root / "m.json");
                 with_latin1(c.root / "m.json", [](json& j) { j["description"] = "@LATIN1@"; });
                 return std::vector<std::string>{"run",       "--matrix", (c.root / "m.json").string(),
                                                 "--backend", "system",   "--samples",
                                                 "3",         "--out",    (c.root / "o").string()};
               },
               2, "m.json: malformed JSON"});

  // A library under test that prints protocol-like lines (a forged `done`) on stdout: the worker
  // talks to abench on a descriptor of its own, so the lines are kept as its output, never read.
  t.push_back({"plugin_prints_protocol_lines",
               [](const Case& c) {
                 return std::vector<std::string>{
                     "run",
                     "--variant",
                     std::string("plugin=") + testing::built::kFaultSubject + ",env=ABENCH_TEST_FAULT=chatty:256",
                     "--matrix",
                     "quick",
                     "--backend",
                     "system",
                     "--workload",
                     "allocate",
                     "--size",
                     "256",
                     "--live",
                     "1",
                     "--samples",
                     "3",
                     "--min-batch-ms",
                     "0.2",
                     "--no-counts",
                     "--no-report",
                     "--out",
                     (c.root / "o").string()};
               },
               0,
               "",
               {"o", "state"},  // state: the run's record, kept while it runs
               [](const Case& c, const CliResult&) {
                 const json results = read_json(c.root / "o" / "results.json");
                 ASSERT_FALSE(results["workers"].empty());
                 for (const auto& w : results["workers"]) {
                   EXPECT_FALSE(w.contains("error")) << w.dump();
                   EXPECT_NE(w.value("stdout_tail", "").find("{\"type\":\"done\"}"), std::string::npos) << w.dump();
                 }
               }});

  // 4. Everything printed is escaped for where it goes.
  t.push_back({"payload_label_in_compare_md_and_csv",
               merge_of([](const Case&, const fs::path& s1, const fs::path& s2) {
                 for (const fs::path& s : {s1, s2})
                   edit_json(s / "results.json", [](json& j) {
                     const std::string label = "=1+2+cmd|' /C calc'!A0 " + kPayload;
                     for (auto& v : j["variants"])
                       if (v["label"] == "again") v["label"] = label;
                     for (auto& cell : j["cells"])
                       if (cell["variant"] == "again") cell["variant"] = label;
                   });
               }),
               -1,
               "",
               {"out", "summary.md"},
               [](const Case& c, const CliResult& r) {
                 EXPECT_NE(r.exit_code, 2) << r.err;
                 for (const char* file : {"compare.md", "gate.md"}) {
                   const std::string md = read_file(c.root / "out" / file);
                   if (file == std::string("compare.md")) {
                     EXPECT_NE(md.find("FAKE PASS"), std::string::npos);  // the label is shown, as text
                   }
                   for (const char* markup : {"\n## FAKE", "<img", "](http", "@admin", "`x`", "[x]"})
                     EXPECT_FALSE(unescaped(md, markup)) << file << ": " << markup;
                 }
                 const std::string csv = read_file(c.root / "out" / "results.csv");
                 EXPECT_EQ(csv.find(",=1+2"), std::string::npos);
                 EXPECT_NE(csv.find("'=1+2"), std::string::npos);
               }});
  t.push_back({"payload_warning_in_gate_md_and_step_summary",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 edit_json(d / "results.json", [](json& j) { j["conditions"]["warnings"] = {kPayload}; });
                 return std::vector<std::string>{
                     "gate",        "--baseline", (c.base / "run").string(), "--candidate", d.string(),
                     "--no-report", "--out",      (c.root / "out").string()};
               },
               -1,
               "",
               {"out", "summary.md"},
               [](const Case& c, const CliResult& r) {
                 EXPECT_NE(r.exit_code, 2) << r.err;
                 for (const fs::path& file : {c.root / "out" / "gate.md", c.root / "summary.md"}) {
                   const std::string md = read_file(file);
                   EXPECT_NE(md.find("FAKE PASS"), std::string::npos) << file;  // shown, as text
                   for (const char* markup : {"\n## FAKE", "<img", "](http", "@admin"})
                     EXPECT_FALSE(unescaped(md, markup)) << file << ": " << markup;
                 }
               }});
  t.push_back({"payload_label_in_report_figures",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 edit_json(d / "results.json", [](json& j) {
                   const std::string label = "v%d%s`touch PWNED`" + std::string(300, 'x');
                   for (auto& v : j["variants"]) v["label"] = label;
                   for (auto& cell : j["cells"]) cell["variant"] = label;
                 });
                 return std::vector<std::string>{"report", d.string()};
               },
               0,
               "report.html",
               {"d"}});

  // 6. One command per output directory; empty and out-of-range options.
  const auto locked = [](std::function<std::vector<std::string>(const Case&, const fs::path&)> command) {
    return [command](const Case& c) {
      const fs::path out = c.root / "out";
      const auto args = command(c, out);
      c.hold_lock(out);
      return args;
    };
  };
  const auto small_run = [](const fs::path& out) {
    return std::vector<std::string>{"run",        "--matrix",  "quick",  "--backend", "system",
                                    "--workload", "allocate",  "--size", "64",        "--live",
                                    "1",          "--samples", "3",      "--out",     out.string()};
  };
  t.push_back({"lock_run",
               locked([small_run](const Case&, const fs::path& out) { return small_run(out); }),
               2,
               "another abench command is writing there (pid 4242: abench run --out elsewhere)",
               {"out"}});
  t.push_back({"lock_compare",
               locked([](const Case&, const fs::path& out) {
                 return std::vector<std::string>{"compare",
                                                 "--matrix",
                                                 "quick",
                                                 "--baseline",
                                                 "backend=system",
                                                 "--candidate",
                                                 "backend=system,label=b",
                                                 "--workload",
                                                 "allocate",
                                                 "--size",
                                                 "64",
                                                 "--out",
                                                 out.string()};
               }),
               2,
               "another abench command is writing there",
               {"out"}});
  t.push_back({"lock_resume",
               [](const Case& c) {
                 const fs::path d = c.interrupted("run");
                 c.hold_lock(d);
                 return std::vector<std::string>{"run", "--resume", d.string()};
               },
               2,
               "another abench command is writing there (pid 4242: abench run --out elsewhere)",
               {"d/.abench.lock"}});
  t.push_back({"lock_merge",
               locked([](const Case& c, const fs::path& out) {
                 return std::vector<std::string>{"merge", (c.base / "s1").string(), (c.base / "s2").string(), "--out",
                                                 out.string()};
               }),
               2,
               "another abench command is writing there",
               {"out"}});
  t.push_back({"lock_report",
               [](const Case& c) {
                 const fs::path d = c.copy("run", "d");
                 c.hold_lock(d);
                 return std::vector<std::string>{"report", d.string()};
               },
               2,
               "another abench command is writing there (pid 4242: abench run --out elsewhere)",
               {"d/.abench.lock"}});
  t.push_back({"lock_gate",
               locked([](const Case& c, const fs::path& out) {
                 return std::vector<std::string>{
                     "gate",  "--baseline", (c.base / "run").string(), "--candidate", (c.base / "run").string(),
                     "--out", out.string()};
               }),
               2,
               "another abench command is writing there",
               {"out"}});
  t.push_back({"option_out_empty", [small_run](const Case&) { return small_run(""); }, 2, "--out: must not be empty"});
  t.push_back({"option_format_empty_item",
               [small_run](const Case& c) {
                 auto args = small_run(c.root / "out");
                 args.insert(args.end(), {"--format", "go,,bencher"});
                 return args;
               },
               2, "an empty item"});
  for (const char* shard : {"0/0", "1/0", "2/1", "1/100000", "-1/2"})
    t.push_back({std::string("option_shard_") + replaced_all(replaced_all(shard, "/", "_of_"), "-", "minus"),
                 [small_run, shard](const Case& c) {
                   auto args = small_run(c.root / "out");
                   args.insert(args.end(), {"--seed", "1", "--shard", shard});
                   return args;
                 },
                 2, "--shard"});
  return t;
}

// The runs the cases craft from, measured once.
void measure_fixtures(const fs::path& base) {
  const std::vector<std::string> small{"--matrix",   "quick", "--workload", "allocate", "--size",         "64",
                                       "--live",     "1",     "--samples",  "3",        "--min-batch-ms", "0.2",
                                       "--no-report"};
  auto with = [&](std::vector<std::string> head, std::vector<std::string> tail) {
    head.insert(head.end(), small.begin(), small.end());
    head.insert(head.end(), tail.begin(), tail.end());
    return head;
  };
  const CliResult run = run_cli(
      with({"run", "--backend", "system", "--align", "64"}, {"--processes", "2", "--out", (base / "run").string()}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const std::vector<std::string> compare{"compare", "--baseline", "backend=system", "--candidate",
                                         "backend=system,label=again"};
  const CliResult cmp =
      run_cli(with(compare, {"--no-counts", "--gate", "--no-confirm", "--out", (base / "cmp").string()}));
  ASSERT_NE(cmp.exit_code, 2) << cmp.err;
  for (int k = 1; k <= 2; ++k) {
    auto args = with(compare, {"--no-counts", "--gate", "--no-confirm", "--seed", "5", "--shard",
                               std::to_string(k) + "/2", "--out", (base / ("s" + std::to_string(k))).string()});
    args[std::find(args.begin(), args.end(), "allocate") - args.begin()] = "allocate,append";
    const CliResult shard = run_cli(args);
    ASSERT_NE(shard.exit_code, 2) << shard.err;
  }
  const CliResult gate = run_cli({"gate", "--baseline", (base / "run").string(), "--candidate", (base / "run").string(),
                                  "--no-report", "--out", (base / "gate").string()});
  ASSERT_NE(gate.exit_code, 2) << gate.err;
}

TEST(HostileInputTable, EveryInputIsRefusedOrNeutralisedAndNothingOutsideItsOutputChanges) {
  testing::TempDir base;
  ASSERT_NO_FATAL_FAILURE(measure_fixtures(base.path()));
  const std::vector<Hostile> cases = table();
  EXPECT_GE(cases.size(), 60u);
  std::vector<std::string> failed_rows;  // named again at the end, where a truncated log still shows them
  for (const Hostile& h : cases) {
    const int failures_before = ::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count();
    SCOPED_TRACE(h.name);
    testing::TempDir dir;
    Case c{dir.path(), base.path()};
    write_text(c.script(), "#!/bin/sh\ntouch " + c.marker().string() + "\nexit 1\n");
    fs::permissions(c.script(), fs::perms::owner_all);
    const std::vector<std::string> args = h.prepare(c);
    const auto before = snapshot(c.root);
    const CliResult r = run_cli(args, {{"XDG_STATE_HOME", (c.root / "state").string()},
                                       {"GITHUB_STEP_SUMMARY", (c.root / "summary.md").string()}});
    // One line a row, for whoever reads the log: what the input got.
    const std::string said = r.err.substr(0, r.err.find('\n', r.err.find("error:")));
    std::printf("%-44s exit %d  %s\n", h.name.c_str(), r.exit_code,
                said.substr(said.find("error:") == std::string::npos ? said.size() : said.find("error:"))
                    .substr(0, 300)
                    .c_str());
    if (h.exit_code >= 0) {
      EXPECT_EQ(r.exit_code, h.exit_code) << r.out << r.err;
    }
    EXPECT_NE((r.out + r.err).find(h.must_mention), std::string::npos) << h.must_mention << " in:\n" << r.out << r.err;
    EXPECT_FALSE(fs::exists(c.marker())) << "code the input named ran";
    const auto after = snapshot(c.root);
    for (const auto& [path, what] : after) {
      const auto was = before.find(path);
      if (was == before.end() || was->second != what) {
        EXPECT_TRUE(allowed(path, h.may_write))
            << path << " changed: " << (was == before.end() ? "(new)" : was->second) << " -> " << what;
      }
    }
    for (const auto& [path, what] : before)
      if (!after.contains(path)) {
        EXPECT_TRUE(allowed(path, h.may_write)) << path << " removed";
      }
    if (h.also) h.also(c, r);
    if (::testing::UnitTest::GetInstance()->current_test_info()->result()->total_part_count() != failures_before)
      failed_rows.push_back(h.name + " (exit " + std::to_string(r.exit_code) + "): " + r.err.substr(0, 400));
  }
  for (const std::string& row : failed_rows) std::printf("FAILED ROW %s\n", row.c_str());
}

// An interrupted compare under `base` whose stored candidate is a script standing in for a
// worker (which the start-up check runs, and refuses), with the environment its resume takes.
struct ScriptedResume {
  Case c;
  fs::path dir;
  std::vector<std::pair<std::string, std::string>> env;
};

ScriptedResume interrupted_compare_of_a_script(const fs::path& base) {
  const CliResult cmp = run_cli({"compare",
                                 "--baseline",
                                 "backend=system",
                                 "--candidate",
                                 "backend=system,label=again",
                                 "--matrix",
                                 "quick",
                                 "--workload",
                                 "allocate",
                                 "--size",
                                 "64",
                                 "--live",
                                 "1",
                                 "--samples",
                                 "3",
                                 "--min-batch-ms",
                                 "0.2",
                                 "--no-counts",
                                 "--no-report",
                                 "--out",
                                 (base / "cmp").string()});
  EXPECT_EQ(cmp.exit_code, 0) << cmp.err;
  const Case c{base, base};
  write_text(c.script(), "#!/bin/sh\ntouch " + c.marker().string() + "\nexit 1\n");
  fs::permissions(c.script(), fs::perms::owner_all);
  const fs::path d =
      c.interrupted("cmp", [&](json& j) { set_option(j, "--candidate", "backend=system,exe=" + c.script().string()); });
  return {c, d, {{"XDG_STATE_HOME", (base / "state").string()}}};
}

// The flag is what the refusal asks for: with it, the stored command's code runs.
TEST(HostileInputTable, TrustStoredCommandRunsTheStoredCode) {
  testing::TempDir base;
  const ScriptedResume s = interrupted_compare_of_a_script(base.path());
  EXPECT_EQ(run_cli({"compare", "--resume", s.dir.string()}, s.env).exit_code, 2);
  EXPECT_FALSE(fs::exists(s.c.marker()));
  const CliResult trusted = run_cli({"compare", "--resume", s.dir.string(), "--trust-stored-command"}, s.env);
  EXPECT_NE(trusted.err.find("(trusted: --trust-stored-command)"), std::string::npos) << trusted.err;
  EXPECT_NE(trusted.err.find("exe=" + s.c.script().string()), std::string::npos) << trusted.err;
  EXPECT_TRUE(fs::exists(s.c.marker()));
}

// What the table's record rows tamper with vouches when it is left alone: a record abench signed
// runs the stored command's code without the flag.
TEST(HostileInputTable, ARecordAbenchSignedVouchesForTheCommandItStarted) {
  testing::TempDir base;
  const ScriptedResume s = interrupted_compare_of_a_script(base.path());
  s.c.record_start(s.dir);
  EXPECT_EQ(fs::status(s.c.root / "state" / "abench" / "key").permissions() & fs::perms::mask,
            fs::perms::owner_read | fs::perms::owner_write);
  const CliResult resumed = run_cli({"compare", "--resume", s.dir.string()}, s.env);
  EXPECT_NE(resumed.err.find("(the command abench started there on this machine)"), std::string::npos) << resumed.err;
  EXPECT_TRUE(fs::exists(s.c.marker()));
}

// A store abench cannot trust is not written to, and not followed: the run goes on and says its
// resume will need the flag; a link's target keeps its mode and gets no record.
TEST(HostileInputTable, ARunKeepsNoRecordInAStoreThatIsALink) {
  testing::TempDir base;
  const fs::path elsewhere = base.path() / "elsewhere";
  fs::create_directories(elsewhere);
  fs::permissions(elsewhere, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::create_directories(base.path() / "state" / "abench");
  fs::create_directory_symlink(elsewhere, base.path() / "state" / "abench" / "runs");
  const CliResult ran = run_cli({"run", "--matrix", "quick", "--backend", "system", "--workload", "allocate", "--size",
                                 "64", "--live", "1", "--samples", "3", "--min-batch-ms", "0.2", "--no-counts",
                                 "--no-report", "--out", (base.path() / "run").string()},
                                {{"XDG_STATE_HOME", (base.path() / "state").string()}});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_NE(ran.err.find("warning: no record of this run is kept"), std::string::npos) << ran.err;
  EXPECT_EQ(fs::status(elsewhere).permissions() & fs::perms::mask,
            fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  EXPECT_TRUE(fs::is_empty(elsewhere));
}

}  // namespace
}  // namespace abench
