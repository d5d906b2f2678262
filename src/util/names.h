// Names that become parts of paths (a stored baseline's or noise file's name, a matrix name
// read from a results file, a directory named after it) pass here, and only here: a name
// is a plain file name, never a way out of the directory it is put in.
#pragma once

#include <string>

namespace abench {

// The name itself when it is 1 to 100 of [A-Za-z0-9._-] and does not start with '.' or '-';
// else UsageError naming `what` (a flag or field) and the rule.
const std::string& checked_name(const std::string& name, const std::string& what);

}  // namespace abench
