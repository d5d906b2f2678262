#include "src/plan/variant.h"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "src/util/errors.h"

namespace abench {
namespace {

const std::vector<std::string> kSpecKeys{"backend", "policy", "entry", "plugin", "preload", "exe", "env", "label"};

std::string existing_file(const std::string& path, const std::string& where, const char* what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw UsageError(fmt::format("{}: {} '{}' does not exist or is not a file", where, what, path));
  return std::filesystem::absolute(path, ec).string();
}

}  // namespace

namespace {

// The label, with each file named by `file_name` (its stem by default).
std::string label_with(const Variant& v, const std::function<std::string(const std::string&, bool)>& file_name) {
  std::string text = v.backend + "/" + std::string(name_of(v.policy));
  if (!v.entry.empty()) text += "+" + v.entry;
  if (!v.plugin.empty()) text += "+" + file_name(v.plugin, false);
  if (!v.preload.empty()) text += "+preload:" + file_name(v.preload, false);
  if (!v.exe.empty()) text += "+exe:" + file_name(v.exe, true);
  for (const auto& [key, value] : v.env) text += "+" + key + "=" + value;
  return text;
}

// The directories every path in `paths` starts with.
std::filesystem::path common_directory(const std::vector<std::string>& paths) {
  std::filesystem::path common = std::filesystem::path(paths.front()).parent_path();
  for (const std::string& text : paths) {
    const std::filesystem::path dir = std::filesystem::path(text).parent_path();
    std::filesystem::path shared;
    for (auto a = common.begin(), b = dir.begin(); a != common.end() && b != dir.end() && *a == *b; ++a, ++b)
      shared /= *a;
    common = shared;
  }
  return common;
}

}  // namespace

std::string Variant::label() const {
  if (!name.empty()) return name;
  return label_with(*this, [](const std::string& path, bool whole_name) {
    const std::filesystem::path p(path);
    return (whole_name ? p.filename() : p.stem()).string();
  });
}

void give_distinct_labels(std::vector<Variant>& variants) {
  std::map<std::string, std::vector<std::size_t>> by_label;
  for (std::size_t i = 0; i < variants.size(); ++i)
    if (variants[i].name.empty()) by_label[variants[i].label()].push_back(i);
  for (const auto& [label, members] : by_label) {
    if (members.size() < 2) continue;
    std::vector<std::string> paths;
    for (std::size_t i : members)
      for (const std::string* path : {&variants[i].plugin, &variants[i].preload, &variants[i].exe})
        if (!path->empty()) paths.push_back(*path);
    if (paths.empty()) continue;
    const std::filesystem::path common = common_directory(paths);
    for (std::size_t i : members)
      variants[i].name = label_with(variants[i], [&](const std::string& path, bool) {
        return std::filesystem::path(path).lexically_relative(common).string();
      });
  }
  std::map<std::string, int> seen;
  for (Variant& v : variants) {
    const int n = ++seen[v.label()];
    if (n > 1) v.name = v.label() + " #" + std::to_string(n);
  }
}

VariantSpec parse_variant_spec(const std::string& text, const std::string& option,
                               const std::vector<std::string>& built) {
  VariantSpec spec;
  const std::string where = fmt::format("{} '{}'", option, text);
  if (text.empty()) throw UsageError(option + ": empty variant (e.g. backend=mimalloc,policy=padded)");
  std::vector<std::string> fields;
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    fields.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  bool last_was_env = false;
  std::set<std::string> given;  // keys, and env's variable names: each once
  for (const std::string& field : fields) {
    const std::size_t eq = field.find('=');
    const std::string key = eq == std::string::npos ? "" : field.substr(0, eq);
    const bool known = std::find(kSpecKeys.begin(), kSpecKeys.end(), key) != kSpecKeys.end();
    if (!known) {
      if (last_was_env) {  // MALLOC_CONF=a:1,b:2 continues
        spec.fields.env.back().second += "," + field;
        continue;
      }
      throw UsageError(fmt::format("{}: unknown field '{}' (allowed: {})", where, field,
                                   fmt::format("{}", fmt::join(kSpecKeys, "=, ")) + "="));
    }
    const std::string value = field.substr(eq + 1);
    last_was_env = key == "env";
    if (key != "env" && !given.insert(key).second)
      throw UsageError(fmt::format("{}: {}= given twice; a variant names each field once", where, key));
    if (key == "backend") {
      spec.backend = parse_backend(value, built, where);
    } else if (key == "policy") {
      spec.policy = parse_policy(value, where);
    } else if (key == "entry") {
      spec.fields.entry = parse_entry_set(value, where);
    } else if (key == "plugin") {
      spec.fields.plugin = existing_file(value, where, "plugin");
    } else if (key == "preload") {
      spec.fields.preload = existing_file(value, where, "preload library");
    } else if (key == "exe") {
      spec.fields.exe = existing_file(value, where, "worker executable");
    } else if (key == "label") {
      spec.fields.name = value;
    } else if (key == "env") {
      const std::size_t inner = value.find('=');
      if (inner == std::string::npos || inner == 0)
        throw UsageError(fmt::format("{}: env needs KEY=VALUE, got '{}'", where, value));
      if (!given.insert("env " + value.substr(0, inner)).second)
        throw UsageError(
            fmt::format("{}: env {} given twice; a variant sets each variable once", where, value.substr(0, inner)));
      spec.fields.env.emplace_back(value.substr(0, inner), value.substr(inner + 1));
    }
  }
  if (!spec.fields.preload.empty() && spec.backend && *spec.backend != "system")
    throw UsageError(
        fmt::format("{}: preload= replaces the allocator of the system worker; it "
                    "cannot be combined with backend={}",
                    where, *spec.backend));
  if (!spec.fields.preload.empty()) spec.backend = "system";
  if (!spec.fields.preload.empty() && !spec.fields.entry.empty() && spec.fields.entry != "portable")
    throw UsageError(
        fmt::format("{}: a preloaded allocator is reached through the portable calls only (malloc & co.); "
                    "entry={} needs a worker linked with it (docs/from-source.md)",
                    where, spec.fields.entry));
  // Another build of a worker measures the backend its name says.
  if (!spec.fields.exe.empty() && !spec.backend) {
    const std::string file = std::filesystem::path(spec.fields.exe).filename().string();
    constexpr std::string_view kPrefix = "abench-worker-";
    for (const auto& known : known_backends())
      if (file.starts_with(kPrefix) && file.substr(kPrefix.size()) == known) spec.backend = known;
    if (!spec.backend)
      throw UsageError(fmt::format("{}: cannot tell the backend of exe '{}' from its name; add backend=NAME", where,
                                   spec.fields.exe));
  }
  return spec;
}

std::vector<Variant> expand_variant_spec(const VariantSpec& spec, const Matrix& matrix) {
  std::vector<Variant> variants;
  const std::vector<std::string> backends = spec.backend ? std::vector<std::string>{*spec.backend} : matrix.backends;
  const std::vector<Policy> policies = spec.policy ? std::vector<Policy>{*spec.policy} : matrix.policies;
  for (const auto& backend : backends)
    for (Policy policy : policies) {
      Variant v = spec.fields;
      v.backend = backend;
      v.policy = policy;
      if (v.entry.empty()) v.entry = matrix.entry_set;
      check_backend_offers(backend, v.entry, "entry");
      if (!v.name.empty() && (backends.size() > 1 || policies.size() > 1))
        v.name += " " + backend + "/" + std::string(name_of(policy));
      variants.push_back(std::move(v));
    }
  return variants;
}

}  // namespace abench
