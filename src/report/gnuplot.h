// Drawing with gnuplot (Debian's gnuplot-nox): abench writes a script holding its data,
// gnuplot draws it as SVG (for the HTML report) and PNG (to attach to a pull request).
// The script is kept beside its figures so a user can restyle and redraw it.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace abench {

// A gnuplot string literal: double-quoted (so "\n" breaks a tic label), backslashes and
// quotes escaped, other control characters dropped, and backquotes written as ' (gnuplot
// would run the text between two as a shell command).
std::string gnuplot_string(std::string_view text);
// The same for a label in an explicit tic list, which gnuplot reads as a format: each % doubled.
std::string gnuplot_tic_label(std::string_view text);

// Runs `gnuplot SCRIPT` in `work_dir`. Throws EnvironmentError when gnuplot is not
// installed or fails (with what it printed).
void run_gnuplot(const std::filesystem::path& script, const std::filesystem::path& work_dir);

}  // namespace abench
