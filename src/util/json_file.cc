#include "src/util/json_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "src/util/text.h"

#include "src/util/errors.h"

namespace abench {

std::string line_and_column(const std::string& text, std::size_t byte_offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte_offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("line {}, column {}", line, column);
}

std::string read_bounded_file(const std::string& path, const std::string& what, std::uintmax_t max_bytes,
                              bool follow_links) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = follow_links ? fs::status(path, ec) : fs::symlink_status(path, ec);
  if (ec || !fs::exists(status)) throw UsageError(fmt::format("{}: cannot read {}: no such file", path, what));
  if (fs::is_symlink(status)) throw UsageError(fmt::format("{}: is a link; {} must be a file of its own", path, what));
  if (fs::is_directory(status)) throw UsageError(fmt::format("{}: is a directory, not {}", path, what));
  if (!fs::is_regular_file(status)) throw UsageError(fmt::format("{}: not a regular file: {} must be one", path, what));
  const std::uintmax_t bytes = fs::file_size(path, ec);
  if (!ec && bytes > max_bytes)
    throw UsageError(fmt::format(
        "{}: {} is {} bytes; abench reads files of at most {}", path, what, bytes,
        max_bytes % (1u << 20) == 0 ? fmt::format("{} MiB", max_bytes >> 20) : fmt::format("{} KiB", max_bytes >> 10)));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(fmt::format("{}: cannot read {}", path, what));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

namespace {

nlohmann::json parsed_json(const std::string& text, const std::string& path, const std::string& what) {
  std::vector<std::set<std::string>> keys_of_open_objects;
  const auto check = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if ((event == Event::object_start || event == Event::array_start) && depth >= kMaxJsonDepth)
      throw UsageError(
          fmt::format("{}: {} nests objects and arrays more than {} levels deep", path, what, kMaxJsonDepth));
    if (event == Event::object_start) keys_of_open_objects.emplace_back();
    if (event == Event::object_end && !keys_of_open_objects.empty()) keys_of_open_objects.pop_back();
    if (event == Event::key && !keys_of_open_objects.empty() &&
        !keys_of_open_objects.back().insert(parsed.get<std::string>()).second)
      throw UsageError(fmt::format("{}: field '{}' appears twice in one object of {}", path,
                                   parsed.get<std::string>().substr(0, 100), what));
    return true;
  };
  // nlohmann's message quotes the last token read, which can be the whole file: a line or two is enough.
  auto brief = [](const char* message) { return printable(std::string_view(message).substr(0, 300)); };
  try {
    return nlohmann::json::parse(text, check);
  } catch (const nlohmann::json::parse_error& e) {
    throw UsageError(fmt::format("{}: malformed JSON at {}: {}", path,
                                 line_and_column(text, e.byte == 0 ? 0 : e.byte - 1), brief(e.what())));
  } catch (const nlohmann::json::out_of_range& e) {  // 406: a number no double can hold
    throw UsageError(fmt::format("{}: {} holds a number out of range (beyond a double's ±1.8e308): {}", path, what,
                                 brief(e.what())));
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(fmt::format("{}: malformed JSON in {}: {}", path, what, brief(e.what())));
  }
}

}  // namespace

nlohmann::json read_json_file(const std::string& path, const std::string& what) {
  return parsed_json(read_bounded_file(path, what, kMaxJsonFileBytes), path, what);
}

std::string read_bounded_file_below(const std::filesystem::path& root, const std::filesystem::path& relative,
                                    const std::string& what, std::uintmax_t max_bytes) {
  const std::string path = (root / relative).string();
  int dir = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw UsageError(fmt::format("{}: cannot read {}: {}", path, what, std::strerror(errno)));
  const std::vector<std::filesystem::path> parts(relative.begin(), relative.end());
  std::filesystem::path so_far = root;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    so_far /= parts[i];
    const bool last = i + 1 == parts.size();
    if (parts[i] == ".." || parts[i] == "." || parts[i].empty()) {
      ::close(dir);
      throw UsageError(fmt::format("{}: {} must lie below {}", path, what, root.string()));
    }
    const int next = ::openat(dir, parts[i].c_str(),
                              (last ? O_RDONLY | O_NONBLOCK : O_RDONLY | O_DIRECTORY) | O_NOFOLLOW | O_CLOEXEC);
    const int error = errno;
    ::close(dir);
    if (next < 0 && (error == ELOOP || (error == ENOTDIR && !last)))
      throw UsageError(fmt::format("{}: {} is a link or not a directory; abench reads nothing through a link below {}",
                                   path, so_far.string(), root.string()));
    if (next < 0 && error == ENOENT) throw UsageError(fmt::format("{}: cannot read {}: no such file", path, what));
    if (next < 0) throw UsageError(fmt::format("{}: cannot read {}: {}", path, what, std::strerror(error)));
    dir = next;
  }
  struct stat st {};
  std::string why;
  if (::fstat(dir, &st) != 0)
    why = std::strerror(errno);
  else if (!S_ISREG(st.st_mode))
    why = fmt::format("not a regular file: {} must be one", what);
  else if (static_cast<std::uintmax_t>(st.st_size) > max_bytes)
    why = fmt::format("{} is {} bytes; abench reads files of at most {} KiB", what, st.st_size, max_bytes >> 10);
  std::string text(why.empty() ? static_cast<std::size_t>(st.st_size) : 0, '\0');
  for (std::size_t done = 0; why.empty() && done < text.size();) {
    const ssize_t n = ::pread(dir, text.data() + done, text.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) why = n < 0 ? std::strerror(errno) : "it was cut short while read";
    done += n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  ::close(dir);
  if (!why.empty()) throw UsageError(fmt::format("{}: {}", path, why));
  return text;
}

nlohmann::json read_json_file_below(const std::filesystem::path& root, const std::filesystem::path& relative,
                                    const std::string& what) {
  return parsed_json(read_bounded_file_below(root, relative, what, kMaxJsonFileBytes), (root / relative).string(),
                     what);
}

}  // namespace abench
