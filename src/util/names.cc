#include "src/util/names.h"

#include <fmt/format.h>

#include "src/util/errors.h"
#include "src/util/text.h"

namespace abench {

const std::string& checked_name(const std::string& name, const std::string& what) {
  const bool plain_characters = name.find_first_not_of(
                                    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                    "0123456789._-") == std::string::npos;
  if (name.empty() || name.size() > 100 || !plain_characters || name.front() == '.' || name.front() == '-')
    throw UsageError(
        fmt::format("{} '{}': a name is 1 to 100 letters, digits, '.', '-' and '_', not starting with "
                    "'.' or '-' (it becomes a file or directory name)",
                    what, printable(name)));
  return name;
}

}  // namespace abench
