// abench list: what this build can measure (src/flow/listing.h).
#include "src/cli/commands.h"
#include "src/flow/listing.h"

namespace abench {

CLI::App* register_list_command(CLI::App& app) {
  return app.add_subcommand("list", "Print the backends built, workloads, policies and matrices");
}

int list_command() {
  print_listing();
  return 0;
}

}  // namespace abench
