#include "src/plan/matrix.h"
#include "src/plan/protocol_fields.h"

#include "allocators/backends.h"

#include "allocators/entry_sets.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/util/errors.h"
#include "src/util/names.h"

#ifndef ABENCH_SOURCE_DIR
#define ABENCH_SOURCE_DIR "."
#endif

namespace abench {
namespace {

constexpr std::size_t kMaxAlignment = std::size_t{1} << 21;  // 2 MiB: huge-page alignment
constexpr std::size_t kMaxLive = 1 << 20;
// A bare alignment number up to this is a preferred alignment (ordinary byte-buffer
// construction); above it, it is requested (page-aligned I/O buffers and the like).
constexpr std::size_t kPreferredOnlyUpTo = 256;

const std::set<std::string> kTopLevelFields{"description", "backends", "policies", "workloads", "sizes",
                                            "alignments",  "live",     "entry",    "protocol"};

std::string joined(const auto& names) { return fmt::format("{}", fmt::join(names, ", ")); }

[[noreturn]] void fail(const std::string& where, const std::string& what) { throw UsageError(where + ": " + what); }

void reject_unknown_fields(const nlohmann::json& object, const std::set<std::string>& allowed,
                           const std::string& where) {
  for (const auto& [key, value] : object.items())
    if (!allowed.contains(key)) fail(where, fmt::format("unknown field '{}' (allowed: {})", key, joined(allowed)));
}

std::uint64_t unsigned_value(const nlohmann::json& v, const std::string& where, const std::string& expected) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
    fail(where, fmt::format("{} is not {}", v.dump(), expected));
  return v.get<std::uint64_t>();
}

template <class T, class Parse>
std::vector<T> parse_axis(const nlohmann::json& matrix, const char* field, const std::string& file, Parse parse) {
  const std::string where = fmt::format("{}: field '{}'", file, field);
  if (!matrix.contains(field)) fail(where, "missing (every matrix names all its axes)");
  const auto& list = matrix.at(field);
  if (!list.is_array() || list.empty()) fail(where, "must be a non-empty array");
  std::vector<T> values;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string item = fmt::format("{}: field '{}[{}]'", file, field, i);
    T value = parse(list[i], item);
    // A value twice would be the same cell twice, which no table or gate can tell apart.
    if (std::find(values.begin(), values.end(), value) != values.end())
      fail(item, fmt::format("{} is listed twice", list[i].dump()));
    values.push_back(value);
  }
  return values;
}

std::string string_value(const nlohmann::json& v, const std::string& where) {
  if (!v.is_string()) fail(where, fmt::format("{} is not a string", v.dump()));
  return v.get<std::string>();
}

void parse_protocol(const nlohmann::json& j, const std::string& file, RunProtocol& p) {
  const std::string where = file + ": field 'protocol'";
  if (!j.is_object()) fail(where, "must be an object");
  std::set<std::string> known;
  for (const ProtocolField& f : protocol_fields())
    if (f.in(ProtocolField::kMatrix)) known.emplace(f.key);
  reject_unknown_fields(j, known, where);
  for (const ProtocolField& f : protocol_fields())
    if (const auto value = j.find(f.key); f.in(ProtocolField::kMatrix) && value != j.end())
      if (const std::string wrong = set_protocol_field(f, *value, p); !wrong.empty())
        fail(fmt::format("{}: field 'protocol.{}'", file, f.key), wrong);
}

}  // namespace

std::string parse_entry_set(const std::string& name, const std::string& where) {
  if (!entry_set_named(name))
    fail(where, fmt::format("unknown entry-point set '{}' (allowed: portable, native, rust)", name));
  return name;
}

void check_backend_offers(const std::string& backend, const std::string& entry, const std::string& where) {
  if (entry.empty()) return;
  std::vector<std::string> offered;
  for (EntrySet set : entry_sets_of(backend)) offered.emplace_back(name_of(set));
  if (std::find(offered.begin(), offered.end(), entry) == offered.end())
    fail(where, fmt::format("backend {} has no entry-point set '{}' (allowed for {}: {})", backend, entry, backend,
                            joined(offered)));
}

const std::vector<std::string>& known_backends() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const BackendTraits& b : backend_table()) all.emplace_back(b.name);
    return all;
  }();
  return names;
}

std::uint64_t physical_memory_bytes() {
  return static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

std::size_t parse_size(const nlohmann::json& value, const std::string& where) {
  const std::uint64_t memory = physical_memory_bytes();
  const std::string allowed = fmt::format("allowed: 1 to {} bytes, this machine's memory", memory);
  const std::uint64_t size = unsigned_value(value, where, "a size in bytes (" + allowed + ")");
  if (size == 0 || size > memory) fail(where, fmt::format("size {} is out of range ({})", size, allowed));
  return static_cast<std::size_t>(size);
}

namespace {
std::size_t checked_alignment(std::uint64_t a, const std::string& where) {
  if (!is_power_of_two(a) || a > kMaxAlignment)
    fail(where, fmt::format("alignment {} is not a power of two from 1 to {}", a, kMaxAlignment));
  return static_cast<std::size_t>(a);
}
Alignment from_bare_number(std::size_t a) { return a <= kPreferredOnlyUpTo ? Alignment{1, a} : Alignment{a, a}; }
}  // namespace

Alignment parse_alignment(const nlohmann::json& value, const std::string& where) {
  const std::string expected = "an alignment: a power of two, or {\"requested\": R, \"preferred\": P}";
  if (value.is_object()) {
    reject_unknown_fields(value, {"requested", "preferred"}, where);
    if (!value.contains("requested") || !value.contains("preferred"))
      fail(where, "an alignment object needs both 'requested' and 'preferred'");
    return {
        checked_alignment(unsigned_value(value["requested"], where + ".requested", expected), where + ".requested"),
        checked_alignment(unsigned_value(value["preferred"], where + ".preferred", expected), where + ".preferred")};
  }
  return from_bare_number(checked_alignment(unsigned_value(value, where, expected), where));
}

Alignment parse_alignment_text(const std::string& text, const std::string& where) {
  auto number = [&](const std::string& part) -> std::uint64_t {
    if (part.empty() || !std::all_of(part.begin(), part.end(), ::isdigit) || part.size() > 12)
      fail(where, fmt::format("'{}' is not an alignment (allowed: a power of two N, or R:P as "
                              "requested:preferred, e.g. 256 or 1:256)",
                              text));
    return std::stoull(part);
  };
  const auto colon = text.find(':');
  if (colon == std::string::npos) return from_bare_number(checked_alignment(number(text), where));
  return {checked_alignment(number(text.substr(0, colon)), where),
          checked_alignment(number(text.substr(colon + 1)), where)};
}

std::size_t parse_live(const nlohmann::json& value, const std::string& where) {
  const std::string allowed = fmt::format("a live count from 1 to {}", kMaxLive);
  const std::uint64_t live = unsigned_value(value, where, allowed);
  if (live == 0 || live > kMaxLive) fail(where, fmt::format("{} is not {}", live, allowed));
  return static_cast<std::size_t>(live);
}

Policy parse_policy(const std::string& name, const std::string& where) {
  if (auto p = policy_from_name(name)) return *p;
  fail(where, fmt::format("unknown policy '{}' (allowed: {})", name, joined(kPolicyNames)));
}

Workload parse_workload(const std::string& name, const std::string& where) {
  if (auto w = workload_from_name(name)) return *w;
  fail(where, fmt::format("unknown workload '{}' (allowed: {})", name, joined(kWorkloadNames)));
}

std::string parse_backend(const std::string& name, const std::vector<std::string>& built, const std::string& where) {
  const auto& known = known_backends();
  if (std::find(known.begin(), known.end(), name) == known.end())
    fail(where, fmt::format("unknown backend '{}' (allowed: {})", name, joined(known)));
  if (std::find(built.begin(), built.end(), name) == built.end()) {
    const BackendTraits* traits = backend_named(name);
    fail(where, fmt::format("backend '{}' was not built on this machine (its library was not found when "
                            "configuring{}; built: {})",
                            name,
                            traits && !traits->debian_package.empty()
                                ? fmt::format(": apt-get install {}, then build again", traits->debian_package)
                                : "",
                            joined(built)));
  }
  return name;
}

std::string source_directory() { return ABENCH_SOURCE_DIR; }
std::string matrices_directory() { return source_directory() + "/matrices"; }

std::vector<std::string> available_matrices() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(matrices_directory(), ec))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string resolve_matrix_path(const std::string& name_or_path) {
  const bool looks_like_path = name_or_path.find('/') != std::string::npos || name_or_path.ends_with(".json");
  if (looks_like_path) return name_or_path;
  return matrices_directory() + "/" + name_or_path + ".json";
}

Matrix load_matrix(const std::string& name_or_path, const std::vector<std::string>& built, bool backends_replaced) {
  const std::string path = resolve_matrix_path(name_or_path);
  std::ifstream in(path);
  if (!in) {
    throw UsageError(
        fmt::format("matrix '{}': cannot read {} (available matrices: {}; or give "
                    "a path to a .json file)",
                    name_or_path, path, joined(available_matrices())));
  }
  const nlohmann::json j = read_json_file(path, "the matrix");
  if (!j.is_object()) throw UsageError(path + ": a matrix must be a JSON object");
  reject_unknown_fields(j, kTopLevelFields, path);

  Matrix m;
  m.path = path;
  m.name = checked_name(std::filesystem::path(path).stem().string(), path + ": the matrix's name (its file name)");
  if (j.contains("description")) m.description = string_value(j["description"], path + ": field 'description'");
  // Backends that --backend replaces need only be known, not built here: `--backend system`
  // works with the default matrix on a machine without mimalloc.
  m.backends = parse_axis<std::string>(j, "backends", path, [&](const auto& v, const auto& where) {
    return parse_backend(string_value(v, where), backends_replaced ? known_backends() : built, where);
  });
  m.policies = parse_axis<Policy>(j, "policies", path, [](const auto& v, const auto& where) {
    return parse_policy(string_value(v, where), where);
  });
  m.workloads = parse_axis<Workload>(j, "workloads", path, [](const auto& v, const auto& where) {
    return parse_workload(string_value(v, where), where);
  });
  m.sizes = parse_axis<std::size_t>(j, "sizes", path, parse_size);
  m.alignments = parse_axis<Alignment>(j, "alignments", path, parse_alignment);
  m.lives = parse_axis<std::size_t>(j, "live", path, parse_live);
  if (j.contains("entry")) {
    const std::string where = path + ": field 'entry'";
    m.entry_set = parse_entry_set(string_value(j["entry"], where), where);
    if (!backends_replaced)
      for (const auto& backend : m.backends) check_backend_offers(backend, m.entry_set, where);
  }
  if (j.contains("protocol")) parse_protocol(j["protocol"], path, m.protocol);
  return m;
}

}  // namespace abench
