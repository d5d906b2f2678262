#include "src/report/gnuplot.h"

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/subprocess.h"
#include "src/util/text.h"

namespace abench {

std::string gnuplot_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '`') {  // gnuplot runs `...` as a shell command even inside double quotes
      out += '\'';
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
  }
  return out + "\"";
}

std::string gnuplot_tic_label(std::string_view text) {
  std::string doubled;
  for (const char c : text) doubled += c == '%' ? std::string("%%") : std::string(1, c);
  return gnuplot_string(doubled);
}

void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& relative_work_dir) {
  const std::filesystem::path work_dir = std::filesystem::absolute(relative_work_dir);
  const std::filesystem::path messages = work_dir / (script.filename().string() + ".stderr");
  Finished ran;
  try {
    ran = run_program({"gnuplot", script.filename().string()}, work_dir, messages);
  } catch (const EnvironmentError& e) {
    throw EnvironmentError(
        fmt::format("{}; abench report draws with gnuplot: install Debian's gnuplot-nox "
                    "(scripts/setup.sh does)",
                    e.what()));
  }
  std::filesystem::remove(messages);
  if (ran.exit_code == 127)
    throw EnvironmentError(
        "cannot run gnuplot: not found; abench report draws with it; install Debian's gnuplot-nox "
        "(scripts/setup.sh does)");
  if (ran.exit_code != 0)
    throw EnvironmentError(
        fmt::format("gnuplot failed on {}: {}", (work_dir / script).string(), printable_tail(ran.output, 2000)));
}

}  // namespace abench
