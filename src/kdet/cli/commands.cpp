// The subcommand table: each cli/<command>.cpp defines add_<command>().
#include "kdet/cli/main.hpp"

namespace kdet::cli {

void add_run(CLI::App& root, Action& action);

const std::vector<CommandSpec>& command_table() {
  static const std::vector<CommandSpec> table = {
      {"run", add_run},
  };
  return table;
}

} // namespace kdet::cli
