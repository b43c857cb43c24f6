// PLACEHOLDER until the scan module lands: registers scan, merge and compare.
#include "kdet/cli/main.hpp"
#include "kdet/util/error.hpp"

namespace kdet::cli {
static void pending(CLI::App& root, Action& action, const char* name) {
  auto* cmd = root.add_subcommand(name, "(not built yet)");
  cmd->callback([&action, name] { action = [name]() -> int { throw Error::format("kdet {} is not built yet", name); }; });
}
void add_scan(CLI::App& root, Action& action) { pending(root, action, "scan"); }
void add_merge(CLI::App& root, Action& action) { pending(root, action, "merge"); }
void add_compare(CLI::App& root, Action& action) { pending(root, action, "compare"); }
} // namespace kdet::cli
